#!/usr/bin/env node
// Writes src/core/engines/frames/<engine>.ts (sglang, vllm, lmdeploy, trtllm, tgi) from the engine-source catalog's `frames[]` and
// `relay_frames[]` (test/fixtures/engine-source/<engine>.json, a copy of shared/research/engine-source/).
//
// usage: node scripts/gen-frame-phases.mjs [--check]   (--check: fail when a generated file is stale)
//
// Each row is [file, function, phase]: `file` is a basename or path suffix, `function` the bare name a
// traceback prints (the catalog's `Class.method` loses its class: Python prints only `in method`), both
// with `*` globs; phase `null` is a relay frame (waits on another process or runs in several phases).
// A fourth element `{ caller: phase }` (from CALLERS below) marks a helper that several steps call: the nearest
// outer frame of the traceback whose function it lists names the phase (see frames/types.ts FrameRule).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');

/**
 * Where real logs disagree with the catalog, the log wins (issue 10). Each override names its reason.
 * [file, bare function, phase, reason]; it replaces catalog rows with the same file and function, or adds one.
 */
const OVERRIDES = {
  lmdeploy: [],
  trtllm: [
    [
      '_torch/autotuner.py',
      '*',
      'autotune',
      'the catalog calls kernel autotuning compile (its phase list has no autotune); firedup reads the same step as autotune (trtllm.ts `[Autotuner] Autotuning process starts`)',
    ],
    // executor/worker.py worker_main: once the executor is built it loops over the request queue calling
    // worker.submit(req), which hands each request to the executor (GenerationExecutorWorker._enqueue_request):
    // a request being taken in, which only an executor that is up does
    [
      'executor/worker.py',
      'submit',
      'serving',
      'GenerationExecutorWorker.submit: worker_main hands it each request once the executor is up',
    ],
    [
      'executor/worker.py',
      '_enqueue_request',
      'serving',
      'GenerationExecutorWorker._enqueue_request: a request into the executor',
    ],
    // commands/build.py (trtllm-build, the TensorRT flow): parallel_build runs build_and_save per rank, which
    // builds that rank's engine (build_model: the checkpoint read into the model, then builder.py build) and
    // saves it (`engine.save(output_dir)`): a traceback cut there was building the engine
    [
      'commands/build.py',
      'build_and_save',
      'compile',
      'trtllm-build build_and_save: one rank engine built (build_model, builder.build) and saved',
    ],
  ],
  tgi: [
    // server/text_generation_server/interceptor.py ExceptionInterceptor.intercept wraps every RPC of the shard's gRPC
    // server, which server.py serve_inner starts only once get_model has built the model: the load is over. The
    // router's calls before Warmup (backends/v3/src/lib.rs connect_backend: ServiceDiscovery, ClearCache, Info) run
    // nothing of the model, so a call that raised is Warmup or a request's (the RPC's own frame, Warmup or
    // Prefill/Decode in server.py, says which, and an inner frame wins): alone it shows warmup at the least
    [
      'text_generation_server/interceptor.py',
      'intercept',
      'warmup',
      "ExceptionInterceptor.intercept: the shard serves RPCs only once its model is loaded; the first that runs the model is the router's Warmup (server.py Warmup/Prefill/Decode under it say which)",
    ],
  ],
  sglang: [
    // Frames of versions before the catalog's (real tracebacks in test/fixtures/wild/sglang): the 0.1.x router
    // (managers/router/model_rpc.py ModelRpcServer.exposed_step -> forward_step -> forward_fill_batch /
    // forward_decode_batch) and the 0.2.x controller (managers/controller_single.py ControllerSingle
    // .loop_for_forward -> managers/tp_worker.py ModelTpServer.exposed_step -> forward_step ->
    // forward_prefill_batch / forward_decode_batch): the request loop, run only once the server is up.
    [
      'router/model_rpc.py',
      'exposed_step',
      'serving',
      'v0.1.x ModelRpcServer.exposed_step: the request step',
    ],
    ['router/model_rpc.py', 'forward_step', 'serving', 'v0.1.x ModelRpcServer.forward_step'],
    [
      'router/model_rpc.py',
      'forward_*_batch',
      'serving',
      'v0.1.x ModelRpcServer.forward_fill_batch/forward_decode_batch',
    ],
    [
      'controller_single.py',
      'loop_for_forward',
      'serving',
      'v0.2.x ControllerSingle.loop_for_forward: the request loop',
    ],
    ['tp_worker.py', 'exposed_step', 'serving', 'v0.2.x ModelTpServer.exposed_step: the request step'],
    ['tp_worker.py', 'forward_step', 'serving', 'v0.2.x ModelTpServer.forward_step'],
    [
      'tp_worker.py',
      'forward_*_batch',
      'serving',
      'v0.2.x ModelTpServer.forward_prefill_batch/forward_decode_batch',
    ],
    [
      'tp_worker_overlap_thread.py',
      'forward_thread_func*',
      'serving',
      "v0.4.x TpModelWorkerClient.forward_thread_func(_): the overlap scheduler's forward thread, running the batches run_batch queues",
    ],
    [
      'schedule_batch.py',
      'get_model_worker_batch',
      'serving',
      'ScheduleBatch.get_model_worker_batch: called by Scheduler.run_batch on a batch of requests',
    ],
    [
      'tokenizer_manager.py',
      '*logprob*',
      'serving',
      "TokenizerManager.convert_logprob_style/add_logprob_to_meta_info/detokenize_*_logprobs_tokens: building a finished request's response",
    ],
    // The model worker's construction runs several steps in turn (ModelRunner.__init__ -> initialize: device and
    // torch.distributed init first, then load_model, the memory pool, graph capture): its own frame, innermost
    // (the deeper frames cut off), says only that the first of them began; a deeper frame names the step
    [
      'scheduler.py',
      'init_tp_model_worker',
      'dist_init',
      'Scheduler.init_tp_model_worker: constructs TpModelWorker/ModelRunner, whose first step is torch.distributed init',
    ],
    [
      'tp_worker.py',
      '_init_model_runner',
      'dist_init',
      'TpModelWorker._init_model_runner: ModelRunner construction, torch.distributed init first',
    ],
    [
      'multimodal_gen/runtime/entrypoints/diffusion_generator.py',
      '*',
      null,
      'diffusion (`sglang generate`/`serve`) DiffGenerator.from_pretrained -> from_server_args -> _start_local_server_if_needed: the CLI process starts the scheduler process and waits on it, in every phase (its from_pretrained loads nothing itself)',
    ],
  ],
  vllm: [
    [
      'multiproc_executor.py',
      'worker_busy_loop',
      null,
      'V1 WorkerProc.worker_busy_loop runs each RPC the engine core sends its workers: determine_available_memory, initialize_from_config and compile_or_warm_up_model (KV cache sizing, compile, graph capture) at start-up as well as execute_model while serving: the frame under it names the step, its own frame (a traceback cut right under it) none',
    ],
    [
      'kernel_warmup.py',
      'kernel_warmup',
      'warmup',
      'catalog README §3 lists model_executor/warmup/* under "compile (again) / warmup"; it runs after the KV cache is sized, the V2 runner calls the same step `warmup_kernels` (warmup), and labelled real logs read it as warmup',
    ],
    [
      'deep_gemm_warmup.py',
      'deep_gemm_warmup',
      'warmup',
      'same step as kernel_warmup (model_executor/warmup/)',
    ],
    [
      'model_executor/warmup/*.py',
      '*',
      'warmup',
      'helpers of the warmup step (e.g. deep_gemm_warmup._warmup)',
    ],
    [
      'gpu_model_runner.py',
      '_dummy_sampler_run',
      'warmup',
      'Worker.compile_or_warm_up_model warms the sampler up after graph capture, the last step of engine init (GPUModelRunner.profile_run calls it too: CALLERS)',
    ],
    [
      'engine/llm_engine.py',
      '_initialize_kv_caches',
      'kv_cache',
      'V0 LLMEngine._initialize_kv_caches: determine_num_available_blocks (the profile run), then initialize_cache; the catalog has only V1 core.py',
    ],
    [
      'gpu_model_runner.py',
      '_dummy_pooler_run',
      'warmup',
      'pooling models: Worker.compile_or_warm_up_model runs it after graph capture where others warm the sampler (profile_run calls it too: CALLERS)',
    ],
    [
      'hpu_model_runner.py',
      'warmup_model',
      'warmup',
      "Gaudi (vllm-gaudi vllm_gaudi/v1/worker/hpu_model_runner.py, HabanaAI vllm-fork worker/hpu_model_runner.py) HPUModelRunner.warmup_model, from the worker's compile_or_warm_up_model once the KV cache is allocated: the HPU graph warmup whose `[Warmup][…]` lines vllm.ts reads as warmup",
    ],
    [
      'hpu_model_runner.py',
      'warmup_graphs',
      'warmup',
      'Gaudi HPUModelRunner.warmup_graphs: the per-bucket graph warmup warmup_model runs (`[Warmup][{phase}][i/n]` lines)',
    ],
    [
      'vllm_ascend/worker/model_runner_v1.py',
      'capture_model',
      'cuda_graph',
      'Ascend (vllm-project/vllm-ascend vllm_ascend/worker/model_runner_v1.py) NPUModelRunner.capture_model: the NPU (ACL) graph capture, which runs GPUModelRunner.capture_model; NPUWorker.compile_or_warm_up_model calls it unless --enforce-eager',
    ],
    [
      'vllm_ascend/worker/model_runner_v1.py',
      '_dummy_run',
      null,
      'Ascend NPUModelRunner._dummy_run: a forward pass on dummy input that profile_run, compile_or_warm_up_model and capture_model all call: the outer frame names the step',
    ],
    [
      'vllm_ascend/worker/worker_v1.py',
      'compile_or_warm_up_model',
      'compile',
      'Ascend NPUWorker.compile_or_warm_up_model (vllm_ascend/worker/worker_v1.py, later worker.py): compile sizes, kernel warmup, then capture_model, as gpu_worker.py',
    ],
    [
      'vllm_ascend/worker/worker.py',
      'compile_or_warm_up_model',
      'compile',
      'Ascend NPUWorker.compile_or_warm_up_model (vllm_ascend/worker/worker.py): as worker_v1.py',
    ],
  ],
};

/**
 * Helpers called from more than one startup step, read in the engine's source: [file, bare function,
 * { bare caller function: phase the helper runs in when called from it }, reason]. They attach to the row of
 * the same file and function (catalog or override, which must exist); its own phase holds for other callers.
 */
const CALLERS = {
  lmdeploy: [],
  trtllm: [],
  tgi: [
    [
      'models/flash_causal_lm.py',
      'generate_token',
      { warmup: 'warmup' },
      'FlashCausalLM.warmup runs a prefill through generate_token to measure memory (the Warmup RPC); elsewhere it is a request step',
    ],
  ],
  sglang: [],
  vllm: [
    [
      'gpu_model_runner.py',
      '_dummy_sampler_run',
      { profile_run: 'kv_cache' },
      'GPUModelRunner.profile_run (Worker.determine_available_memory) runs it on the dummy batch to size the KV cache ("CUDA out of memory occurred when warming up sampler" there is a kv_cache OOM)',
    ],
    [
      'gpu_model_runner.py',
      '_dummy_pooler_run',
      { profile_run: 'kv_cache' },
      'pooling models: GPUModelRunner.profile_run runs _dummy_pooler_run where others run _dummy_sampler_run',
    ],
    [
      'gpu_worker.py',
      'execute_model',
      { warmup_kernels: 'warmup', run_mixed_prefill_decode_warmup: 'warmup' },
      'V2 runner: Worker.compile_or_warm_up_model passes self.execute_model to gpu/warmup.py warmup_kernels, which runs real steps through it',
    ],
    [
      'gpu_worker.py',
      'sample_tokens',
      { warmup_kernels: 'warmup', run_mixed_prefill_decode_warmup: 'warmup' },
      'same as execute_model: gpu/warmup.py calls worker_sample_tokens',
    ],
    [
      'gpu/model_runner.py',
      'execute_model',
      { warmup_kernels: 'warmup', run_mixed_prefill_decode_warmup: 'warmup' },
      'the V2 runner step that Worker.execute_model calls, during gpu/warmup.py warmup too',
    ],
  ],
};

const q = (s) => (s === null ? 'null' : `'${s}'`);
const bare = (fn) => fn.slice(fn.lastIndexOf('.') + 1);

for (const engine of ['sglang', 'vllm', 'lmdeploy', 'trtllm', 'tgi']) {
  const src = `test/fixtures/engine-source/${engine}.json`;
  const cat = JSON.parse(fs.readFileSync(path.join(root, src), 'utf8'));
  const rows = new Map();
  const add = (file, fn, phase, why, override = false) => {
    const key = `${file}\0${fn}`;
    const had = rows.get(key);
    // Two catalog rows that a traceback cannot tell apart (same file, same bare name): see frames/index.ts.
    if (had && !override && had.phase !== phase)
      console.warn(`${engine}: ${file} ${fn}: ${had.phase} vs ${phase}`);
    if (!had || override || had.phase !== null) rows.set(key, { file, fn, phase, why });
  };
  for (const f of cat.frames) add(f.file, bare(f.function), f.phase, `${f.function}: ${f.why}`);
  for (const f of cat.relay_frames ?? []) add(f.file, bare(f.function), null, `relay ${f.function}`);
  for (const [file, fn, phase, why] of OVERRIDES[engine]) add(file, fn, phase, `override: ${why}`, true);
  for (const [file, fn, callers, why] of CALLERS[engine]) {
    const row = rows.get(`${file}\0${fn}`);
    if (!row) throw new Error(`${engine}: CALLERS ${file} ${fn}: no row to attach to`);
    row.callers = callers;
    row.why += `; callers: ${why}`;
  }
  const lines = [
    `// Generated by scripts/gen-frame-phases.mjs from ${src}`,
    '// (the engine-source catalog, its README). Do not edit: change the catalog or the',
    "// generator's OVERRIDES/CALLERS and run it again. [file suffix, bare function, phase, callers?]; null phase =",
    '// relay frame; callers = { caller function: phase } for a helper several steps call (frames/types.ts).',
    "import type { FrameRule } from './types.js';",
    '',
    `export const ${engine.toUpperCase()}_FRAMES: readonly FrameRule[] = [`,
  ];
  for (const r of rows.values()) {
    lines.push(`  // ${r.why.replace(/\s+/g, ' ').slice(0, 100).trimEnd()}`);
    const callers = r.callers
      ? `, { ${Object.entries(r.callers)
          .map(([fn, p]) => `${fn}: ${q(p)}`)
          .join(', ')} }`
      : '';
    const row = `  [${q(r.file)}, ${q(r.fn)}, ${q(r.phase)}${callers}],`;
    // Biome's layout (lineWidth 110): a row too long for one line has one element a line.
    if (row.length <= 110) lines.push(row);
    else
      lines.push(
        '  [',
        ...[q(r.file), q(r.fn), q(r.phase), callers.slice(2)].map((e) => `    ${e},`),
        '  ],',
      );
  }
  lines.push('];', '');
  const text = lines.join('\n');
  const out = path.join(root, `src/core/engines/frames/${engine}.ts`);
  if (check) {
    if (!fs.existsSync(out) || fs.readFileSync(out, 'utf8') !== text) {
      console.error(`${out} is stale: run node scripts/gen-frame-phases.mjs`);
      process.exitCode = 1;
    }
  } else fs.writeFileSync(out, text);
  console.log(`${engine}: ${rows.size} rows`);
}
