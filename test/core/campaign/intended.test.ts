/**
 * The command line of a launch read as config keys, and held against the config the log shows: real argv
 * built to match (or not) the scenario logs' `server_args` and a vLLM `non-default args` dump from the corpus.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { intendedUrl, parseCommand, parseValue } from '../../../src/core/campaign/intended.js';
import { checkIntended, sameValue } from '../../../src/core/campaign/intended-check.js';
import type { LaunchReport } from '../../../src/core/reading/report.js';
import { analyzeBytes, readShared } from '../../helpers.js';

function launches(rel: string): LaunchReport[] {
  return analyzeBytes(readShared(rel)).launches;
}

/** The GLM-5 command of the scenarios' first launch, as the user typed it. */
const GLM5 = [
  'python3',
  '-m',
  'sglang.launch_server',
  '--model-path',
  'lukealonso/GLM-5-NVFP4',
  '--tp',
  '8',
  '--trust-remote-code',
  '--quantization',
  'modelopt_fp4',
  '--kv-cache-dtype=fp8_e4m3',
  '--mem-fraction-static',
  '0.88',
  '--max-running-requests',
  '64',
  '--cuda-graph-max-bs',
  '64',
  '--chunked-prefill-size',
  '8192',
  '--attention-backend',
  'flashinfer',
  '--moe-runner-backend',
  'flashinfer_cutlass',
  '--host',
  '0.0.0.0',
  '--port',
  '8000',
];

describe('parseCommand', () => {
  it('reads python -m sglang.launch_server: aliases, = form, switches, numbers as numbers', () => {
    const c = parseCommand(['env', 'CUDA_VISIBLE_DEVICES=0,1', 'nohup', ...GLM5, '--disable-cuda-graph']);
    assert.equal(c.engine, 'sglang');
    assert.equal(c.program, 'sglang.launch_server');
    assert.equal(c.python, 'python3');
    assert.equal(c.executable, 'python3');
    assert.deepEqual(c.flags, {
      model_path: 'lukealonso/GLM-5-NVFP4',
      tp_size: 8,
      trust_remote_code: true,
      quantization: 'modelopt_fp4',
      kv_cache_dtype: 'fp8_e4m3',
      mem_fraction_static: 0.88,
      max_running_requests: 64,
      cuda_graph_max_bs: 64,
      chunked_prefill_size: 8192,
      attention_backend: 'flashinfer',
      moe_runner_backend: 'flashinfer_cutlass',
      host: '0.0.0.0',
      port: 8000,
      disable_cuda_graph: true,
    });
  });

  it('reads vllm serve MODEL with -tp, --no-X, multi-value and JSON flags', () => {
    const c = parseCommand([
      'vllm',
      'serve',
      'Qwen/Qwen3-8B',
      '-tp',
      '2',
      '--served-model-name',
      'a',
      'b',
      '--no-enable-prefix-caching',
      '--enforce-eager',
      '--speculative-config',
      '{"method":"ngram","num_speculative_tokens":5}',
    ]);
    assert.equal(c.engine, 'vllm');
    assert.deepEqual(c.flags, {
      model: 'Qwen/Qwen3-8B',
      tensor_parallel_size: 2,
      served_model_name: ['a', 'b'],
      enable_prefix_caching: false,
      enforce_eager: true,
      speculative_config: { method: 'ngram', num_speculative_tokens: 5 },
    });
    const old = parseCommand([
      'python',
      '-m',
      'vllm.entrypoints.openai.api_server',
      '--model',
      'm',
      '--port',
      '8001',
    ]);
    assert.equal(old.engine, 'vllm');
    assert.deepEqual(old.flags, { model: 'm', port: 8001 });
  });

  it('a secret flag whose key starts with - takes it as its value (issue 25, item 6)', () => {
    const c = parseCommand([
      'llama-server',
      '-m',
      'm.gguf',
      '--api-key',
      '-Zq8SECRETkeyAbc',
      '--port',
      '8090',
    ]);
    assert.deepEqual(c.flags, { model: 'm.gguf', api_key: '<redacted>', port: 8090 });
    const s = parseCommand([
      'python',
      '-m',
      'sglang.launch_server',
      '--admin-api-key',
      '-Zq8SECRETkeyAbc',
      '--tp',
      '2',
    ]);
    assert.equal(s.flags.admin_api_key, '<redacted>');
    assert.equal(s.flags.tp_size ?? s.flags.tp, 2);
    assert.ok(!JSON.stringify(s).includes('Zq8SECRET'));
    // a short flag after a secret flag given no value stays a flag
    const t = parseCommand(['llama-server', '--api-key', '-m', 'm.gguf']);
    assert.equal(t.flags.model, 'm.gguf');
  });

  it('reads llama-server short flags, and redacts secrets', () => {
    const c = parseCommand([
      '/opt/llama.cpp/build/bin/llama-server',
      '-m',
      'model.gguf',
      '--port',
      '8080',
      '-c',
      '4096',
      '-ngl',
      '99',
      '--api-key',
      'sk-abcdefghijklmnopqrstuvwxyz',
    ]);
    assert.equal(c.engine, 'llamacpp');
    assert.equal(c.program, 'llama-server');
    assert.deepEqual(c.flags, {
      model: 'model.gguf',
      port: 8080,
      ctx_size: 4096,
      n_gpu_layers: 99,
      api_key: '<redacted>',
    });
  });

  it('knows the other engines and leaves an unknown program without one', () => {
    assert.equal(
      parseCommand(['text-generation-launcher', '--model-id', 'x', '--num-shard', '2']).engine,
      'tgi',
    );
    assert.deepEqual(parseCommand(['trtllm-serve', 'serve', 'm', '--tp_size', '4']).flags, {
      model: 'm',
      tp_size: 4,
    });
    const other = parseCommand(['./my-server.sh', '--port', '9000']);
    assert.equal(other.engine, null);
    assert.equal(other.program, 'my-server.sh');
    assert.equal(parseCommand(['./x.py'], 'vllm').engine, 'vllm');
  });

  it('turns words into the values a dump prints', () => {
    assert.equal(parseValue('8'), 8);
    assert.equal(parseValue('0.88'), 0.88);
    assert.equal(parseValue('1e-3'), 0.001);
    assert.equal(parseValue('-1'), -1);
    assert.equal(parseValue('True'), true);
    assert.equal(parseValue('None'), null);
    assert.equal(parseValue('12345678901234567890'), '12345678901234567890');
    assert.equal(parseValue('Qwen/Qwen3-8B'), 'Qwen/Qwen3-8B');
  });

  it('gives the address to probe', () => {
    assert.equal(intendedUrl({ port: 8000, host: '0.0.0.0' }), 'http://127.0.0.1:8000');
    assert.equal(intendedUrl({ port: 8080, host: '10.0.0.5' }), 'http://10.0.0.5:8080');
    assert.equal(intendedUrl({ host: 'x' }), undefined);
  });
});

describe('checkIntended against real config dumps', () => {
  it('SGLang: the flags of the first GLM-5 launch all match its server_args', () => {
    const [first] = launches('scenarios/glm5-relaunch-stuck-at-48pct.log');
    const c = parseCommand(GLM5);
    const r = checkIntended('sglang', c.flags, first!.config, first!.configSources);
    assert.equal(r.fullDump, true);
    assert.deepEqual(r.mismatches, []);
    assert.deepEqual(r.unobservable, []);
    assert.equal(r.checks.length, Object.keys(c.flags).length);
    assert.ok(r.checks.every((x) => x.status === 'match'));
  });

  it('SGLang: the same command against the relaunch flags what the relaunch changed', () => {
    const [, second] = launches('scenarios/glm5-relaunch-stuck-at-48pct.log');
    const c = parseCommand(GLM5);
    const r = checkIntended('sglang', c.flags, second!.config, second!.configSources);
    assert.deepEqual(r.mismatches, [
      { key: 'max_running_requests', intended: 64, observed: null, reason: 'differs' },
      { key: 'cuda_graph_max_bs', intended: 64, observed: null, reason: 'differs' },
    ]);
  });

  it('SGLang: a switch the dump contradicts, an abbreviation argparse accepts, a flag the dump lacks', () => {
    const [first] = launches('scenarios/glm5-silent-after-load-weight-end.log');
    const c = parseCommand([...GLM5, '--disable-cuda-graph', '--mem-frac', '0.88', '--enable-made-up-thing']);
    const r = checkIntended('sglang', c.flags, first!.config, first!.configSources);
    assert.deepEqual(r.mismatches, [
      { key: 'disable_cuda_graph', intended: true, observed: false, reason: 'differs' },
      { key: 'enable_made_up_thing', intended: true, observed: null, reason: 'absent' },
    ]);
    assert.equal(r.checks.find((x) => x.key === 'mem_frac')?.observedKey, 'mem_fraction_static');
  });

  it('vLLM non-default args: matches, a difference, and a default left out is not observable', () => {
    const [l] = launches('corpus/extra/032.log');
    const c = parseCommand([
      'vllm',
      'serve',
      'Qwen/Qwen3.6-35B-A3B-FP8',
      '--host',
      '0.0.0.0',
      '--port',
      '8555',
      '--max-model-len',
      '262144',
      '--enforce-eager',
      '--served-model-name',
      'user',
      '-tp',
      '2',
      '--gpu-memory-utilization',
      '0.9',
      '--max-num-seqs',
      '256',
      '--speculative-config',
      '{"method":"dflash","model":"z-lab/Qwen3.6-35B-A3B-DFlash","num_speculative_tokens":5}',
    ]);
    const r = checkIntended('vllm', c.flags, l!.config, l!.configSources);
    assert.equal(r.fullDump, false);
    assert.deepEqual(r.mismatches, [
      { key: 'gpu_memory_utilization', intended: 0.9, observed: 0.5, reason: 'differs' },
    ]);
    assert.deepEqual(r.unobservable, ['max_num_seqs']);
  });

  it('llama-server prints no config: every flag is not observable, none a mismatch', () => {
    const c = parseCommand(['llama-server', '-m', 'tiny.gguf', '--port', '8080', '-c', '256']);
    const r = checkIntended('llamacpp', c.flags, {}, []);
    assert.deepEqual(r.mismatches, []);
    assert.deepEqual(r.unobservable, ['model', 'port', 'ctx_size']);
  });

  it('compares values as a dump prints them', () => {
    assert.ok(sameValue(8, '8'));
    assert.ok(sameValue(true, 'True'));
    assert.ok(sameValue('user', ['user']));
    assert.ok(sameValue({ a: 1, b: [2] }, '{"b": [2], "a": 1}'));
    assert.ok(sameValue('<redacted>', '<redacted>'));
    assert.ok(!sameValue('<redacted>', null));
    assert.ok(!sameValue(64, null));
    assert.ok(!sameValue(0.88, 0.9));
  });
});
