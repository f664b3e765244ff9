/** TensorRT-LLM (`trtllm-serve`, PyTorch backend): research/vllm-and-peers.md §2. */

import { parseTrtllmPyTorchConfig } from '../config/engine-config.js';
import type { LogLine } from '../types.js';
import { clickSignatures } from './cli-errors.js';
import type { EngineModule, Signature } from './types.js';

const signatures: Signature[] = [
  {
    id: 'version',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'TensorRT-LLM version',
    re: /^\[TensorRT-LLM\] TensorRT-LLM version: (\S+)|^TensorRT-LLM version: (\S+)/,
    version: (m) => m[1] ?? m[2] ?? null,
  },
  {
    id: 'backend',
    kind: 'phase',
    phase: 'args',

    re: /^Using LLM with \w+ backend|rank 0 using MpiPoolSession/,
  },
  {
    id: 'pytorch_config',
    kind: 'phase',
    phase: 'args',
    lit: 'PyTorchConfig(',
    re: /^PyTorchConfig\(/,
    config: parseTrtllmPyTorchConfig,
  },
  {
    id: 'weights',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'e',
    // 0.20 (PyTorch backend) says `Rank 0 uses 8.46 GB for model weights.` / `Rank 0 prefetching … to memory...`.
    re: /^(?:Rank \d+ )?Uses? [\d.]+ GB for model weights\.|^(?:Rank \d+ )?Prefetching \S+ to memory|^Loading (?:weights|safetensors|engine)|deserializ/i,
  },
  {
    id: 'model_init',
    kind: 'phase',
    phase: 'weights_loaded',
    lit: 'Model init total',
    re: /^Model init total -- [\d.]+s/,
  },
  {
    id: 'kv',
    kind: 'phase',
    phase: 'kv_cache',
    lit: 'e',
    re: /\[MemUsageChange\] Allocated [\d.]+ GiB for max tokens in paged KV cache|^Peak memory during memory usage profiling|^max_seq_len=\d+, max_num_requests=\d+|^Estimated max memory in KV cache/,
  },
  {
    id: 'autotune',
    kind: 'phase',
    phase: 'autotune',
    lit: 'Autotun',
    // _torch/autotuner.py logs `[Autotuner] Autotuning process starts …`; the frame reader takes the bracketed
    // tag for a module tag, so the message may start at `Autotuning`.
    re: /(?:\[Autotuner\] |^)Autotuning process (?:starts|ends)/,
  },
  {
    id: 'cuda_graph',
    kind: 'phase',
    phase: 'cuda_graph',
    lit: 'CUDA graph',
    re: /^Creating CUDA graph instances|^Run generation only CUDA graph warmup/,
  },
  {
    id: 'mem_fraction',
    kind: 'phase',
    phase: 'warmup',
    lit: 'memory fraction',
    re: /^Setting PyTorch memory fraction/,
  },
  {
    id: 'uvicorn_start',
    kind: 'phase',
    phase: 'warmup',
    lit: 'INFO:',
    re: /^INFO: +(?:Started server process|Waiting for application startup|Application startup complete)/,
  },
  { id: 'ready', kind: 'ready', phase: 'ready', lit: 'Uvicorn running on', re: /Uvicorn running on \S+/ },
  { id: 'iter', kind: 'serving', phase: 'serving', lit: 'iter = ', re: /^iter = \d+, global_rank = \d+/ },
  {
    id: 'access',
    kind: 'serving',
    phase: 'serving',
    lit: 'HTTP/',
    re: /^INFO: +\S+ - "(?:GET|POST) \S+ HTTP\/[\d.]+" \d{3}/,
  },
  {
    id: 'insufficient',
    kind: 'failure',
    failure: 'oom',
    lit: 'insufficient GPU memory',
    re: /Executor creation failed due to insufficient GPU memory/,
  },
  {
    id: 'oom',
    kind: 'failure',
    failure: 'oom',
    lit: 'ut of memory',
    re: /Cuda Runtime \(out of memory\)|OutOfMemory \(Requested size|CUDA out of memory/,
  },
  { id: 'deserialize', kind: 'failure', lit: 'deserialize', re: /Failed to deserialize cuda engine/ },
  {
    id: 'worker_init',
    kind: 'consequence',
    lit: 'Executor worker',
    re: /Executor worker initialization error|Executor worker returned error|Executor worker died during initialization/,
  },
  {
    // tensorrt_llm/executor/worker.py worker_main: logger.error(f"Failed to initialize executor on rank {rank}: {e}")
    id: 'executor_init_failed',
    kind: 'failure',
    lit: 'Failed to initialize executor',
    re: /Failed to initialize executor on rank \d+: (.*)$/,
  },
  {
    // _torch/pyexecutor/py_executor.py: an exception in the forward step fails the batch's requests
    // (_handle_errors) and the executor loop goes on, so the traceback before it is not what stopped the server
    id: 'forward_error',
    kind: 'degraded',
    recovers: true,
    lit: 'Encountered an error in forward function',
    re: /^Encountered an error in forward function: /,
  },
  { id: 'mpi_abort', kind: 'consequence', lit: 'MPI_ABORT', re: /MPI_ABORT was invoked on rank \d+/ },
  {
    id: 'shutdown',
    kind: 'shutdown',
    lit: 'INFO:',
    re: /^INFO: +(?:Shutting down|Waiting for application shutdown|Application shutdown complete|Finished server process)/,
  },
  ...clickSignatures('trtllm-serve(?: serve)?'),
];

export const trtllm: EngineModule = {
  id: 'trtllm',
  detect(line: LogLine): number {
    if (
      /\[TRT-LLM\]|\[TensorRT-LLM\]|TensorRT-LLM version|tensorrt_llm|trtllm-serve|MpiPoolSession|tlc_init|\[Autotuner\]/.test(
        line.text,
      )
    )
      return 8;
    if (line.frame === 'trtllm' || /^\[\d{2}\/\d{2}\/\d{4}-\d{2}:\d{2}:\d{2}\] /.test(line.text)) return 3;
    return 0;
  },
  signatures,
  hints: {
    oom: 'lower kv_cache_config.free_gpu_memory_fraction or max_batch_size/max_num_tokens, or use more GPUs',
    cuda_error: 'check the engine was built for this GPU architecture and TensorRT-LLM version',
    python_exception:
      'read the traceback above the evidence line; the real cause is usually above "Executor worker returned error"',
    'stalled:autotune':
      'the autotuner can run for minutes with no output: watch nvidia-smi utilisation before calling it hung',
  },
  silentBudget: {
    args: 300,
    loading_weights: 600,
    kv_cache: 600,
    autotune: 1200,
    cuda_graph: 900,
    warmup: 300,
  },
};
