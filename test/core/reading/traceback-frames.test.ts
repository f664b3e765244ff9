import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Phase } from '../../../src/core/base/types.js';
import { lookupFrame } from '../../../src/core/engines/frames/index.js';
import { parseLine } from '../../../src/core/lines/prefix.js';
import { LogAnalyzer } from '../../../src/core/reading/analyzer.js';
import { TracebackTracker } from '../../../src/core/reading/traceback.js';
import { analyzeText, SHARED } from '../../helpers.js';

interface CatalogFrame {
  file: string;
  function: string;
  phase: string;
}

/** The engine-source catalog (shared/research/engine-source, copied into test/fixtures). */
function catalog(engine: string): { frames: CatalogFrame[]; relay_frames: CatalogFrame[] } {
  return JSON.parse(fs.readFileSync(path.join(SHARED, 'engine-source', `${engine}.json`), 'utf8'));
}

/**
 * Where labelled real logs disagree with the catalog, the log wins (issue 10); the reasons are in
 * scripts/gen-frame-phases.mjs OVERRIDES. These are the only catalog rows read at another phase.
 */
const OVERRIDDEN: Record<string, string | null> = {
  // V1 workers run every start-up step's RPC and the forward passes in this loop: a relay (null), the frame under
  // it decides (gen-frame-phases.mjs OVERRIDES)
  'vllm multiproc_executor.py WorkerProc.worker_busy_loop': null,
  'vllm kernel_warmup.py kernel_warmup': 'warmup',
  'vllm deep_gemm_warmup.py deep_gemm_warmup': 'warmup',
  // the model worker's construction: its first step (gen-frame-phases.mjs OVERRIDES)
  'sglang scheduler.py Scheduler.init_tp_model_worker': 'dist_init',
  'sglang tp_worker.py TpModelWorker._init_model_runner': 'dist_init',
};

/** A concrete name for a glob (`models/*.py` → `models/x.py`, `*_weights_iterator` → `x_weights_iterator`). */
const concrete = (s: string): string => s.replace(/\*/g, 'x');
const bare = (fn: string): string => concrete(fn.slice(fn.lastIndexOf('.') + 1));

function frameLine(engine: string, file: string, fn: string): string {
  return `  File "/usr/lib/python3.12/site-packages/${engine}/${concrete(file)}", line 1, in ${bare(fn)}`;
}

/** The phase a small traceback made of these lines gives, through the real tracker. */
function tracebackPhase(frames: string[], exception = 'RuntimeError: boom'): Phase | null {
  const t = new TracebackTracker();
  const lines = ['Traceback (most recent call last):', ...frames, exception];
  let phase: Phase | null | undefined;
  lines.forEach((text, i) => {
    const ev = t.feed(parseLine(text, i + 1, 0, { year: 2026 }));
    if (ev) phase = ev.framePhase;
  });
  assert.notEqual(phase, undefined, 'the exception line closes the traceback');
  return phase ?? null;
}

function analyze(text: string): { phase: string | null } {
  const a = new LogAnalyzer();
  a.push(Buffer.from(text));
  const r = a.end();
  const last = r.launches.at(-1);
  return { phase: last?.phase ?? null };
}

const SG = '/usr/local/lib/python3.12/dist-packages/sglang/srt';
const VL = '/usr/local/lib/python3.12/dist-packages/vllm';
const TORCH = '/usr/local/lib/python3.12/dist-packages/torch';
const f = (file: string, line: number, fn: string) => `  File "${file}", line ${line}, in ${fn}`;

describe('traceback frames from the engine-source catalog', () => {
  for (const engine of ['sglang', 'vllm']) {
    it(`map every ${engine} catalog frame to its phase`, () => {
      const { frames } = catalog(engine);
      const wrong: string[] = [];
      for (const fr of frames) {
        const key = `${engine} ${fr.file} ${fr.function}`;
        const want = key in OVERRIDDEN ? (OVERRIDDEN[key] ?? null) : fr.phase;
        const line = frameLine(engine, fr.file, fr.function);
        const got = tracebackPhase([line, '    x()']);
        // `shutdown` frames run after the launch is over: they name no launch phase.
        const expect = want === 'shutdown' ? null : want;
        if (got !== expect) wrong.push(`${fr.file} ${fr.function}: ${got} (want ${expect})`);
        const v = lookupFrame(
          engine as 'sglang' | 'vllm',
          `/x/${engine}/${concrete(fr.file)}`,
          bare(fr.function),
        );
        if (want === null ? v.kind !== 'relay' : v.kind !== 'phase' || v.phase !== want)
          wrong.push(`lookup ${fr.file} ${fr.function}: ${JSON.stringify(v)}`);
      }
      assert.deepEqual(wrong, [], `${wrong.length} of ${frames.length} frames not mapped`);
    });

    it(`map no ${engine} relay frame to a phase, and let the frames around it decide`, () => {
      for (const fr of catalog(engine).relay_frames) {
        const line = frameLine(engine, fr.file, fr.function);
        assert.equal(tracebackPhase([line]), null, `${fr.file} ${fr.function}`);
        const load = frameLine(engine, 'weight_utils.py', 'download_weights_from_hf');
        assert.equal(
          tracebackPhase([load, line]),
          'loading_weights',
          `${fr.file} ${fr.function} under a load`,
        );
      }
    });
  }

  it('take the innermost engine frame, not the outer one', () => {
    // SGLang: the scheduler builds the model worker (loading_weights) whose runner starts NCCL (dist_init).
    const frames = [
      f(`${SG}/managers/scheduler.py`, 3, 'run_scheduler_process'),
      f(`${SG}/managers/scheduler.py`, 300, 'init_tp_model_worker'),
      f(`${SG}/managers/tp_worker.py`, 80, '__init__'),
      f(`${SG}/model_executor/model_runner.py`, 250, 'initialize'),
      f(`${SG}/model_executor/model_runner.py`, 400, 'init_torch_distributed'),
      f(`${TORCH}/distributed/distributed_c10d.py`, 1500, 'init_process_group'),
    ];
    assert.equal(tracebackPhase(frames), 'dist_init');
    // vLLM: engine core sizes the KV cache (kv_cache), the worker captures graphs (cuda_graph).
    const vf = [
      f(`${VL}/v1/engine/core.py`, 90, '__init__'),
      f(`${VL}/v1/engine/core.py`, 200, '_initialize_kv_caches'),
      f(`${VL}/v1/executor/abstract.py`, 120, 'initialize_from_config'),
      f(`${VL}/v1/worker/gpu_worker.py`, 400, 'compile_or_warm_up_model'),
      f(`${VL}/v1/worker/gpu_model_runner.py`, 3000, 'capture_model'),
      f(`${VL}/v1/worker/gpu_model_runner.py`, 2500, '_dummy_run'),
      f(`${VL}/model_executor/models/llama.py`, 400, 'forward'),
    ];
    assert.equal(tracebackPhase(vf), 'cuda_graph');
  });

  it('keep an outer phase when the inner frame is only a module-wide helper', () => {
    const frames = [
      f(`${VL}/v1/engine/core.py`, 900, 'run_busy_loop'),
      f(`${VL}/v1/engine/core.py`, 950, 'step'),
      f(`${VL}/distributed/device_communicators/pynccl_wrapper.py`, 300, 'ncclAllReduce'),
    ];
    assert.equal(tracebackPhase(frames), 'serving');
  });

  it('read a cut traceback of the serving loop as serving', () => {
    const log = [
      '(EngineCore_DP0 pid=1) ERROR 02-03 22:43:35 [core.py:968] Traceback (most recent call last):',
      `(EngineCore_DP0 pid=1) ERROR 02-03 22:43:35 [core.py:968] ${f(`${VL}/v1/engine/core.py`, 959, 'run_engine_core')}`,
      '(EngineCore_DP0 pid=1) ERROR 02-03 22:43:35 [core.py:968]     engine_core.run_busy_loop()',
      `(EngineCore_DP0 pid=1) ERROR 02-03 22:43:35 [core.py:968] ${f(`${VL}/v1/engine/core.py`, 986, 'run_busy_loop')}`,
      '(EngineCore_DP0 pid=1) ERROR 02-03 22:43:35 [core.py:968]     self._process_engine_step()',
      '',
    ].join('\n');
    assert.equal(analyze(log).phase, 'serving');
    const sg = [
      '[2026-01-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):',
      f(`${SG}/managers/scheduler.py`, 2500, 'run_scheduler_process'),
      '    scheduler.event_loop_overlap()',
      f(`${SG}/managers/scheduler.py`, 700, 'event_loop_overlap'),
      '    batch_result = self.run_batch(batch)',
      '',
    ].join('\n');
    assert.equal(analyze(sg).phase, 'serving');
  });

  it('read serving-loop frames before the ready line as the warmup (SGLang warms up through its event loop)', () => {
    const log = [
      '[2026-01-01 10:00:00 TP0] max_total_num_tokens=100000, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=256, context_len=32768, available_gpu_mem=10.00 GB',
      '[2026-01-01 10:00:05 TP0] Scheduler hit an exception: Traceback (most recent call last):',
      f(`${SG}/managers/scheduler.py`, 700, 'event_loop_overlap'),
      f(`${SG}/managers/scheduler.py`, 900, 'run_batch'),
      'RuntimeError: CUDA error: an illegal memory access was encountered',
      '',
    ].join('\n');
    assert.equal(analyze(log).phase, 'warmup');
  });

  it('read a config.json download under get_config as args, a weight download as loading_weights', () => {
    const hub = [
      f('/usr/lib/python3.12/site-packages/transformers/utils/hub.py', 400, 'cached_file'),
      f('/usr/lib/python3.12/site-packages/huggingface_hub/file_download.py', 900, 'hf_hub_download'),
    ];
    const args = [
      f(`${SG}/configs/model_config.py`, 100, '__init__'),
      f(`${SG}/hf_transformers_utils.py`, 200, 'get_config'),
      ...hub,
    ];
    assert.equal(tracebackPhase(args, 'OSError: cannot find config.json'), 'args');
    const weights = [
      f(`${VL}/model_executor/model_loader/weight_utils.py`, 300, 'download_weights_from_hf'),
      ...hub,
    ];
    assert.equal(tracebackPhase(weights, 'OSError: boom'), 'loading_weights');
  });

  it('take a chained traceback of hub frames alone by the engine frame of the chain', () => {
    const log = [
      'Traceback (most recent call last):',
      f('/usr/lib/python3.12/site-packages/huggingface_hub/utils/_validators.py', 132, 'validate_repo_id'),
      "huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name'",
      '',
      'The above exception was the direct cause of the following exception:',
      '',
      'Traceback (most recent call last):',
      f(`${SG}/server_args.py`, 7299, 'prepare_server_args'),
      f(`${SG}/hf_transformers_utils.py`, 79, 'get_config'),
      f('/usr/lib/python3.12/site-packages/transformers/utils/hub.py', 473, 'cached_files'),
      "OSError: Repo id must be in the form 'repo_name'",
      '',
    ].join('\n');
    assert.equal(analyze(log).phase, 'args');
    // With no engine frame at all, a hub download is taken for weight loading.
    const alone = [
      'Traceback (most recent call last):',
      f('/usr/lib/python3.12/site-packages/huggingface_hub/file_download.py', 900, 'hf_hub_download'),
      'huggingface_hub.errors.LocalEntryNotFoundError: cannot find the requested files',
      '',
    ].join('\n');
    assert.equal(analyze(alone).phase, 'loading_weights');
  });

  it('read a bare hub traceback by the file it was fetching: config and tokenizer files at args', () => {
    const HUB = '/usr/local/lib/python3.10/dist-packages/huggingface_hub';
    const TF = '/usr/local/lib/python3.10/dist-packages/transformers';
    const gated = (file: string) =>
      [
        "[2026-01-01 10:00:00] server_args=ServerArgs(model_path='org/m', tokenizer_path='org/m', port=30000)",
        'Traceback (most recent call last):',
        f(`${HUB}/utils/_http.py`, 409, 'hf_raise_for_status'),
        '    response.raise_for_status()',
        `requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://huggingface.co/org/m/resolve/main/${file}`,
        'huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-0)',
        '',
        `Cannot access gated repo for url https://huggingface.co/org/m/resolve/main/${file}.`,
        'Access to model org/m is restricted. You must have access to it and be authenticated to access it. Please log in.',
        '',
      ].join('\n');
    // huggingface_hub utils/_http.py hf_raise_for_status: the URL names the file (config.json is read with the
    // model config, SGLang hf_transformers_utils.py get_config / vLLM transformers_utils/config.py get_config).
    assert.equal(analyze(gated('config.json')).phase, 'args');
    assert.equal(analyze(gated('tokenizer_config.json')).phase, 'args');
    assert.equal(analyze(gated('model-00001-of-00004.safetensors')).phase, 'loading_weights');
    assert.equal(analyze(gated('model.safetensors.index.json')).phase, 'loading_weights');
    // The URL only on the line after the exception (hub errors print their message over several lines).
    const later = [
      'Traceback (most recent call last):',
      f(`${HUB}/file_download.py`, 900, 'hf_hub_download'),
      'huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-0)',
      '',
      'Cannot access gated repo for url https://hf-mirror.com/org/m/resolve/abc123/tokenizer.json.',
      '',
    ].join('\n');
    assert.equal(analyze(later).phase, 'args');
    // transformers' wording (utils/hub.py cached_files: "does not appear to have a file named …").
    const named = [
      'Traceback (most recent call last):',
      f(`${TF}/utils/hub.py`, 470, 'cached_files'),
      'OSError: org/m does not appear to have a file named generation_config.json. Checkout https://huggingface.co/org/m/tree/main for available files.',
      '',
    ].join('\n');
    assert.equal(analyze(named).phase, 'args');
    // No file named: transformers' caller of the hub tells (AutoTokenizer vs PreTrainedModel.from_pretrained).
    const via = (file: string) =>
      [
        'Traceback (most recent call last):',
        f(`${TF}/${file}`, 900, 'from_pretrained'),
        f(`${TF}/utils/hub.py`, 470, 'cached_files'),
        f(`${HUB}/file_download.py`, 900, 'hf_hub_download'),
        'huggingface_hub.errors.LocalEntryNotFoundError: cannot find the requested files in the disk cache',
        '',
      ].join('\n');
    assert.equal(analyze(via('models/auto/tokenization_auto.py')).phase, 'args');
    assert.equal(analyze(via('configuration_utils.py')).phase, 'args');
    assert.equal(analyze(via('modeling_utils.py')).phase, 'loading_weights');
    // The engine's own config helpers around the hub (vLLM transformers_utils/repo_utils.py list_repo_files, no
    // phase of their own in the frames table): the model's config is being read, at args.
    const engineHelper = [
      'Traceback (most recent call last):',
      f(`${VL}/transformers_utils/repo_utils.py`, 120, 'list_repo_files'),
      f(`${HUB}/utils/_http.py`, 482, 'hf_raise_for_status'),
      'huggingface_hub.errors.HfHubHTTPError: 429 Client Error: Too Many Requests for url: https://huggingface.co/api/models/org/m/tree/main',
      '',
    ].join('\n');
    assert.equal(analyze(engineHelper).phase, 'args');
    // The file named by the chain's first exception, before the hub's frames (a connection error, then the hub's
    // LocalEntryNotFoundError, then transformers' OSError, each `raise … from` the one before).
    const chain = [
      'Traceback (most recent call last):',
      f('/usr/lib/python3.12/site-packages/requests/adapters.py', 700, 'send'),
      "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with url: /org/m/resolve/main/config.json",
      '',
      'The above exception was the direct cause of the following exception:',
      '',
      'Traceback (most recent call last):',
      f(`${HUB}/file_download.py`, 1484, '_raise_on_head_call_error'),
      'huggingface_hub.errors.LocalEntryNotFoundError: An error happened while trying to locate the file on the Hub.',
      '',
      'The above exception was the direct cause of the following exception:',
      '',
      'Traceback (most recent call last):',
      f(`${TF}/utils/hub.py`, 470, 'cached_files'),
      "OSError: We couldn't connect to 'https://huggingface.co' to load the files.",
      '',
    ].join('\n');
    assert.equal(analyze(chain).phase, 'args');
    // Engine frames still decide over the file: vLLM weight_utils.py download_weights_from_hf fetches weights.
    const frames = [
      f(`${VL}/model_executor/model_loader/weight_utils.py`, 300, 'download_weights_from_hf'),
      f(`${HUB}/_snapshot_download.py`, 200, 'snapshot_download'),
    ];
    assert.equal(
      tracebackPhase(
        frames,
        'OSError: no file named config.json in https://huggingface.co/org/m/resolve/main/config.json',
      ),
      'loading_weights',
    );
  });

  it("read a helper several steps call by its caller (vLLM's sampler/pooler dummy runs, V2 warmup steps)", () => {
    const runner = `${VL}/v1/worker/gpu_model_runner.py`;
    const decorator = f(`${TORCH}/utils/_contextlib.py`, 116, 'decorate_context');
    const profile = [
      f(`${VL}/v1/engine/core.py`, 699, 'run_engine_core'),
      f(`${VL}/v1/worker/gpu_worker.py`, 263, 'determine_available_memory'),
      f(runner, 3303, 'profile_run'),
      decorator,
    ];
    const warm = [f(`${VL}/v1/worker/gpu_worker.py`, 400, 'compile_or_warm_up_model'), decorator];
    for (const helper of ['_dummy_sampler_run', '_dummy_pooler_run']) {
      const inner = [f(runner, 3120, helper), f(`${TORCH}/nn/modules/module.py`, 1700, '_call_impl')];
      // GPUModelRunner.profile_run runs it while Worker.determine_available_memory sizes the KV cache.
      assert.equal(
        tracebackPhase([...profile, ...inner], 'RuntimeError: CUDA out of memory'),
        'kv_cache',
        helper,
      );
      // Worker.compile_or_warm_up_model runs it after graph capture: the warm-up.
      assert.equal(tracebackPhase([...warm, ...inner]), 'warmup', helper);
      // Alone (cut traceback), the row's own phase.
      assert.equal(tracebackPhase(inner), 'warmup', helper);
      assert.deepEqual(lookupFrame('vllm', runner, helper, ['x', 'profile_run', 'decorate_context']), {
        kind: 'phase',
        phase: 'kv_cache',
        weak: false,
      });
    }
    // V2 runner: gpu/warmup.py warmup_kernels runs steps through Worker.execute_model / sample_tokens.
    const step = [
      f(`${VL}/v1/worker/gpu_worker.py`, 700, 'execute_model'),
      f(`${VL}/v1/worker/gpu/model_runner.py`, 900, 'execute_model'),
    ];
    const v2warm = [
      f(`${VL}/v1/worker/gpu_worker.py`, 400, 'compile_or_warm_up_model'),
      f(`${VL}/v1/worker/gpu/warmup.py`, 319, 'warmup_kernels'),
    ];
    assert.equal(tracebackPhase([...v2warm, ...step]), 'warmup');
    const sample = f(`${VL}/v1/worker/gpu_worker.py`, 720, 'sample_tokens');
    assert.equal(
      tracebackPhase([f(`${VL}/v1/worker/gpu/warmup.py`, 191, 'run_mixed_prefill_decode_warmup'), sample]),
      'warmup',
    );
    const busy = [f(`${VL}/v1/worker/worker_base.py`, 300, 'execute_method'), ...step];
    assert.equal(tracebackPhase(busy), 'serving');
  });

  it('read torch/_inductor under an engine compile frame as compile, a compiled call as nothing', () => {
    const frames = [
      f(`${VL}/v1/worker/gpu_model_runner.py`, 3000, 'profile_run'),
      f(`${VL}/compilation/backends.py`, 600, '__call__'),
      f(`${VL}/compilation/backends.py`, 300, 'compile'),
      f(`${TORCH}/_inductor/compile_fx.py`, 2000, 'compile_fx'),
      f(`${TORCH}/_inductor/graph.py`, 1000, 'codegen'),
    ];
    assert.equal(tracebackPhase(frames), 'compile');
    const run = [
      f(`${VL}/v1/worker/gpu_model_runner.py`, 3000, 'profile_run'),
      f(`${TORCH}/_dynamo/eval_frame.py`, 600, '_fn'),
      f(`${TORCH}/_inductor/output_code.py`, 600, '__call__'),
    ];
    assert.equal(tracebackPhase(run), 'kv_cache');
    assert.equal(tracebackPhase([f(`${TORCH}/cuda/graphs.py`, 180, '__exit__')]), 'cuda_graph');
    const barrier = [
      f(`${SG}/model_executor/model_runner.py`, 700, 'load_model'),
      f(`${TORCH}/distributed/distributed_c10d.py`, 4000, 'monitored_barrier'),
    ];
    assert.equal(tracebackPhase(barrier), 'weights_loaded');
  });

  it("read Gloo's report that a rank reached SGLang's post-load barrier as weights loaded", () => {
    const log = [
      '[2026-01-01 10:00:00] Received sigquit from a child process. It usually means the child failed.',
      '[rank1]:[E101 10:00:00.123456789 ProcessGroupGloo.cpp:143] Rank 1 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.',
      '',
    ].join('\n');
    assert.equal(analyze(log).phase, 'weights_loaded');
  });

  it('join a frame line the terminal wrapped inside its path', () => {
    const log = [
      '(Worker pid=4) ERROR 11-25 08:05:06 [multiproc_executor.py:815] Traceback (most recent call last):',
      '(Worker pid=4) ERROR 11-25 08:05:06 [multiproc_executor.py:815]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_exe',
      'cutor/warmup/deep_gemm_warmup.py", line 262, in _warmup',
      '(Worker pid=4) ERROR 11-25 08:05:06 [multiproc_executor.py:815] torch.OutOfMemoryError: CUDA out of memory.',
      '',
    ].join('\n');
    assert.equal(analyze(log).phase, 'warmup');
  });

  it('read a frame line whose head the paste cut (the copy began inside its path)', () => {
    const log = [
      'vllm/model_executor/model_loader/loader.py", line 400, in load_model',
      '    model.load_weights(weights)',
      'RuntimeError: shape mismatch',
      '',
    ].join('\n');
    assert.equal(analyze(log).phase, 'loading_weights');
  });

  it("read a cut traceback of the model's construction as weight loading (SGLang and vLLM model code)", () => {
    // SGLang 0.1-0.4 builds its models from vLLM's layers: a model __init__ down to a layer's create_weights
    const sg = [
      f(`${SG}/models/llama.py`, 40, '__init__'),
      '    self.gate_up_proj = MergedColumnParallelLinear(',
      f(`${VL}/model_executor/layers/linear.py`, 300, '__init__'),
      f(`${VL}/model_executor/layers/linear.py`, 80, 'create_weights'),
      '    weight = Parameter(torch.empty(output_size_per_partition,',
    ];
    assert.equal(tracebackPhase(sg), 'loading_weights');
    assert.equal(analyze([...sg, ''].join('\n')).phase, 'loading_weights');
    // make_layers' helpers in the model file build it too: no forward
    const built = [
      f(`${SG}/models/qwen2_moe.py`, 900, 'get_layer'),
      f(`${SG}/models/qwen2_moe.py`, 244, '__init__'),
      f(`${SG}/layers/quantization/unquant.py`, 219, 'create_weights'),
    ];
    assert.equal(tracebackPhase(built), 'loading_weights');
    const vl = [f(`${VL}/model_executor/models/qwen2.py`, 300, '__init__')];
    assert.equal(tracebackPhase(vl), 'loading_weights');
    // an outer frame still decides (a layer built while the KV cache is profiled is that step's)
    const outer = [
      f(`${VL}/v1/worker/gpu_model_runner.py`, 2000, 'profile_run'),
      f(`${VL}/model_executor/layers/linear.py`, 300, '__init__'),
    ];
    assert.equal(tracebackPhase(outer), 'kv_cache');
  });

  it("read a cut traceback of SGLang's model forward alone as weights loaded at least", () => {
    const frames = [
      f(`${SG}/models/deepseek_v2.py`, 1800, 'forward'),
      '    return self.forward_core(s)',
      f(`${SG}/models/deepseek_v2.py`, 1900, 'forward_absorb_core'),
      f(`${SG}/layers/radix_attention.py`, 200, 'unified_attention_with_output'),
      '    ret = get_attn_backend().forward(',
    ];
    assert.equal(tracebackPhase(frames), 'weights_loaded');
    assert.equal(analyze([...frames, ''].join('\n')).phase, 'weights_loaded');
    // the caller's frame decides where one is shown
    const capture = [
      f(`${SG}/model_executor/cuda_graph_runner.py`, 400, 'capture_one_batch_size'),
      ...frames,
    ];
    assert.equal(tracebackPhase(capture), 'cuda_graph');
    // a layer alone is library code a tool may call outside a server (the fused-MoE tuning scripts)
    const layer = [f(`${SG}/layers/moe/fused_moe_triton/fused_moe.py`, 1421, 'fused_experts_impl')];
    assert.equal(tracebackPhase(layer), null);
  });

  it("read Xinference's model load (core/model.py ModelActor.load) as weight loading, its actor plumbing as nothing", () => {
    const XI = '/opt/conda/lib/python3.10/site-packages';
    const frames = [
      f(`${XI}/xoscar/backends/pool.py`, 389, '_run_coro'),
      f(`${XI}/xoscar/api.py`, 418, '__on_receive__'),
      f(`${XI}/xinference/core/model.py`, 387, 'load'),
    ];
    assert.equal(tracebackPhase(frames), 'loading_weights');
    assert.equal(tracebackPhase(frames.slice(0, 2)), null);
  });

  it('tell nothing from a model forward of an engine the catalog does not cover', () => {
    const frames = [
      f(
        '/opt/conda/lib/python3.10/site-packages/text_generation_server/models/custom_modeling/flash_llama_modeling.py',
        401,
        'forward',
      ),
    ];
    assert.equal(tracebackPhase(frames), null);
    const load = [
      f(
        '/opt/conda/lib/python3.10/site-packages/text_generation_server/models/__init__.py',
        900,
        'get_model',
      ),
    ];
    assert.equal(tracebackPhase(load), 'loading_weights');
  });
});

describe('TensorRT-LLM weight lines', () => {
  it('read the 0.20 per-rank wording as weight loading', () => {
    const log = [
      '[TensorRT-LLM] TensorRT-LLM version: 0.20.0',
      '[01/02/2026-10:00:00] [TRT-LLM] [I] Rank 0 uses 12.00 GB for model weights.',
      '[01/02/2026-10:00:00] [TRT-LLM] [I] Rank 0 prefetching /models/x/model-00001-of-00004.safetensors to memory...',
      '',
    ].join('\n');
    assert.equal(analyze(log).phase, 'loading_weights');
  });
});

describe("rich's traceback panel (typer's uncaught-exception hook): read as Python's plain traceback", () => {
  const srv = '/opt/conda/lib/python3.11/site-packages/text_generation_server';
  const panel = [
    '╭───────────────────── Traceback (most recent call last) ──────────────────────╮',
    `│ ${srv}/models/flash_causal_lm.py:1200 in warmup │`,
    '│                                                                              │',
    '│   1199 │   │   try:                                                          │',
    '│ ❱ 1200 │   │   │   _, batch, _ = self.generate_token(batch)                  │',
    '╰──────────────────────────────────────────────────────────────────────────────╯',
  ];

  it("a panel with its exception line: the frame's phase, the exception's class", () => {
    const r = analyzeText(
      [...panel, 'RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB'].join('\n'),
    );
    const l = r.launches[r.launches.length - 1]!;
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'oom');
    assert.equal(l.phase, 'warmup');
  });

  it('a panel cut inside its frames, behind a per-rank prefix: a crash where the frame was', () => {
    const r = analyzeText(
      panel
        .slice(1, 5)
        .map((t) => `[rank1]: ${t}`)
        .join('\n'),
    );
    const l = r.launches[r.launches.length - 1]!;
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'warmup');
  });

  it('a box of another program is no traceback', () => {
    const r = analyzeText(
      ['╭──── Settings ────╮', '│ port: 8080       │', '╰──────────────────╯'].join('\n'),
    );
    assert.equal(r.launches.length, 0);
  });
});
