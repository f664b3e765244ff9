/**
 * A traceback cut before its exception line (issue 22): its innermost engine frame, a faulthandler dump's shape,
 * or a 30-minute gap before it name the failure class; made-up lines of the shapes SGLang and Python print.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cutCallClass, cutFrameClass } from '../../../../src/core/engines/frames/cut-class.js';
import { analyzeText } from '../../../helpers.js';

const last = (text: string) => {
  const r = analyzeText(text);
  return r.launches[r.launches.length - 1]!;
};
const pkg = '/opt/venv/lib/python3.11/site-packages/sglang';

describe('cut tracebacks: the class their innermost frame shows', () => {
  it('the table: server_args.py frames are argument validation, the architecture lookup is unsupported', () => {
    assert.equal(cutFrameClass('sglang', `${pkg}/srt/server_args.py`, 'check_server_args'), 'config_error');
    assert.equal(cutFrameClass('sglang', `${pkg}/srt/model_executor/model_runner.py`, 'load_model'), null);
    assert.equal(cutCallClass('sglang', 'get_model_cls_by_arch_name'), 'unsupported');
    assert.equal(cutCallClass('sglang', 'load_model'), null);
  });

  it('TGI: a traceback cut in Weights.get_sharded is its shard-count assertion (config_error)', () => {
    const srv = '/usr/src/server/text_generation_server';
    assert.equal(cutFrameClass('tgi', `${srv}/utils/weights.py`, 'get_sharded'), 'config_error');
    assert.equal(cutFrameClass('tgi', `${srv}/utils/weights.py`, 'get_filename'), null);
    const l = last(
      [
        'Traceback (most recent call last):',
        `  File "${srv}/models/flash_llama.py", line 60, in __init__`,
        '    model = FlashLlamaForCausalLM(prefix, config, weights)',
        `  File "${srv}/utils/weights.py", line 270, in get_sharded`,
        '    size % world_size == 0',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'config_error');
  });

  it('vLLM: a traceback cut on the call to (or in) check_enough_kv_cache_memory is a KV cache too small (oom)', () => {
    const v1 = '/usr/local/lib/python3.12/dist-packages/vllm/v1';
    assert.equal(
      cutFrameClass('vllm', `${v1}/core/kv_cache_utils.py`, '_check_enough_kv_cache_memory'),
      'oom',
    );
    assert.equal(cutFrameClass('vllm', `${v1}/core/kv_cache_utils.py`, 'get_kv_cache_config'), null);
    const l = last(
      [
        'ERROR 01-02 03:04:05 [core.py:500] EngineCore failed to start.',
        'ERROR 01-02 03:04:05 [core.py:500] Traceback (most recent call last):',
        `ERROR 01-02 03:04:05 [core.py:500]   File "${v1}/engine/core.py", line 90, in _initialize_kv_caches`,
        'ERROR 01-02 03:04:05 [core.py:500]     get_kv_cache_config(vllm_config, spec, available)',
        `ERROR 01-02 03:04:05 [core.py:500]   File "${v1}/core/kv_cache_utils.py", line 900, in get_kv_cache_config`,
        'ERROR 01-02 03:04:05 [core.py:500]     check_enough_kv_cache_memory(vllm_config, spec, available)',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'oom');
  });

  it('vLLM: cut on `raise ValueError(` whose message starts on the next line, the raise site names the class', () => {
    const v1 = '/opt/venv/lib/python3.11/site-packages/vllm/v1';
    const p = '(EngineCore_DP0 pid=7) ERROR 02-03 04:05:06 [core.py:700]';
    const l = last(
      [
        `${p}   File "${v1}/core/kv_cache_utils.py", line 1200, in get_kv_cache_configs`,
        `${p}     _check_enough_kv_cache_memory(`,
        `${p}   File "${v1}/core/kv_cache_utils.py", line 640, in _check_enough_kv_cache_memory`,
        `${p}     raise ValueError(`,
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'oom');
    // a raise whose message is on its line is still read by the message
    const m = last(
      [
        'Traceback (most recent call last):',
        `  File "${v1}/core/kv_cache_utils.py", line 640, in _check_enough_kv_cache_memory`,
        '    raise ValueError("No available memory for the cache blocks. Try increasing `gpu_memory_utilization`")',
      ].join('\n'),
    );
    assert.equal(m.failure?.class, 'oom');
  });

  it('a launch cut inside prepare_server_args crashed on its arguments', () => {
    const l = last(
      [
        'Traceback (most recent call last):',
        `  File "${pkg}/launch_server.py", line 11, in <module>`,
        '    server_args = prepare_server_args(sys.argv[1:])',
        `  File "${pkg}/srt/server_args.py", line 3001, in prepare_server_args`,
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'config_error');
  });

  it('a load cut on the call to the architecture lookup is an unsupported model', () => {
    const l = last(
      [
        'Traceback (most recent call last):',
        `  File "${pkg}/srt/managers/router/model_runner.py", line 290, in load_model`,
        '    model_class = get_model_cls_by_arch_name(architectures)',
      ].join('\n'),
    );
    assert.equal(l.failure?.class, 'unsupported');
  });

  it('a faulthandler dump (`line N in fn`, no comma) is no Python exception: other', () => {
    const l = last(
      [
        'Current thread 0x00007f0000000000 (most recent call first):',
        `  File "${pkg}/srt/models/llama.py", line 400 in load_weights`,
        `  File "${pkg}/srt/model_loader/loader.py", line 380 in load_model`,
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'other');
  });

  it("a cut traceback 30 minutes after the line before it is torch.distributed's default timeout", () => {
    const text = (t: string) =>
      [
        '[2026-03-01 10:00:00 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=20.00 GB',
        `[2026-03-01 ${t} TP0] Scheduler hit an exception: Traceback (most recent call last):`,
        `  File "${pkg}/srt/model_executor/cuda_graph_runner.py", line 296, in __init__`,
        '    self.capture()',
      ].join('\n');
    assert.equal(last(text('10:30:00')).failure?.class, 'timeout');
    assert.equal(last(text('10:05:00')).failure?.class, 'python_exception');
  });
});
