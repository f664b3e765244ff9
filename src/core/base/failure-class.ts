/**
 * Classifies the text of an exception or failure line. Order matters: the first class whose pattern
 * matches wins, and the most specific causes come first (`CUDA error: out of memory` is an OOM, an NCCL
 * watchdog timeout is an NCCL problem, not a generic timeout).
 */
import type { FailureClass } from './types.js';

const RULES: Array<[FailureClass, RegExp]> = [
  // `Cannot allocate memory` is strerror(ENOMEM): the host refused memory (an mmap of a checkpoint shard, a fork).
  // A CUDA call that failed for want of memory, named by its code rather than its text (`out of memory`, which
  // cudaGetErrorString gives cudaErrorMemoryAllocation and cuGetErrorString CUDA_ERROR_OUT_OF_MEMORY): oom, before
  // the CUDA errors below
  [
    'oom',
    /out of memory|cudaErrorMemoryAllocation|CUDA_ERROR_OUT_OF_MEMORY|OutOfMemory|\bOOM\b(?! ?killer)|Not enough memory|cudaMalloc failed|insufficient (?:GPU )?memory|No available memory for the cache blocks|KV cache is needed, which is larger than the available|larger than the maximum number of tokens that can be stored in KV cache|less than desired GPU memory utilization|not enough GPU memory|profiled value -\d+|failed to allocate \S+ buffer|Cannot allocate memory/i,
  ],
  // c10d's TCPStore (`Timed out after N seconds waiting for clients. 1/2 clients joined.`): ranks that never met,
  // as DistStoreError below (classifyExceptionType), also where only its message is relayed (xinference)
  [
    'nccl',
    // torch/csrc/distributed/c10d/ProcessGroupWrapper.cpp (TORCH_DISTRIBUTED_DEBUG=DETAIL): ranks ran different
    // collectives, `Detected mismatch between collectives on ranks. Rank 13 is running collective: …`
    // (`Failed: MPI error <file>:<line> '<code>'`: the MPICHECK of NCCL's examples, which TensorRT-LLM's
    // common/mpiUtils.cpp keeps for its MPI calls between ranks: the ranks' communication failed)
    /NCCL error|Failed: MPI error|nccl\w*Error|Detected mismatch between collectives|ncclInternalError|ncclSystemError|ncclUnhandledCudaError|ncclInvalid|ProcessGroupNCCL|WorkNCCL|collective operation timeout|DistBackendError|NCCL WARN|monitoredBarrier|Gloo connectFullMesh|gloo\/transport|waiting for clients\. \d+\/\d+ clients joined/i,
  ],
  // (TensorRT-LLM's TLLM_CUDA_CHECK, cpp/include/tensorrt_llm/common/cudaUtils.h: `CUDA runtime error in fn(…): msg`)
  // (rocBLAS library/src/tensile_host.cpp, before it aborts: `rocBLAS error: Could not initialize Tensile host: No
  // devices found`, `rocBLAS error: Cannot read …TensileLibrary.dat`: ROCm's BLAS found no device it can run on)
  [
    'cuda_error',
    /CUDA error|CUDA runtime error|ROCm error|rocBLAS error|MUSA error|cudaError\w*|CUDA kernel errors|illegal memory access|device-side assert|CUBLAS_STATUS|CUDNN_STATUS|cuDNN error|no kernel image is available|Memory access fault|HIP error|hipError|AcceleratorError|CUDA driver|Triton Error \[CUDA\]|misaligned address|unspecified launch failure|CUDA kernel failed|HSA_STATUS_ERROR_\w+|NPU function error|ACL_ERROR_\w+|\bcutlass\w*\b.*\bError Internal\b/i,
  ],
  // The driver's library missing (glibc dlopen's `cannot open shared object file`, a container started without
  // GPUs); PyTorch's NVML check in its caching allocator (c10/cuda/CUDACachingAllocator.cpp
  // `TORCH_INTERNAL_ASSERT(NVML_SUCCESS == r)`): a GPU runtime failure, not the Python code
  [
    'cuda_error',
    /libcuda\.so(?:\.\d+)*: cannot open shared object file|NVML_SUCCESS == \w+ INTERNAL ASSERT FAILED/,
  ],
  [
    'port_in_use',
    /address already in use|couldn't bind HTTP server socket|Port is already in use|port \d+ is (?:already )?in use|Failed to bind to|EADDRINUSE|\[Errno (?:98|48)\]/i,
  ],
  // huggingface_hub utils/_http.py hf_raise_for_status re-raises requests' `401 Client Error: Unauthorized for
  // url: https://huggingface.co/…` (a gated or private repo without a valid token), as GatedRepoError does
  [
    'model_not_found',
    // huggingface_hub utils/_http.py hf_raise_for_status on a gated or private repo without a token:
    // `401 Client Error: Unauthorized for url: https://huggingface.co/<repo>/resolve/main/config.json`
    /(?:401|403) Client Error: (?:Unauthorized|Forbidden) for url: https:\/\/(?:huggingface\.co|hf-mirror\.com)\/|RepositoryNotFoundError|Repository Not Found|HFValidationError|is not a local folder and is not a valid model identifier|does not appear to have a file named|LocalEntryNotFoundError|GatedRepoError|failed to open GGUF file|No such file or directory.*(?:model|\.gguf|\.safetensors|config\.json|\.bin)|Can't load (?:the )?(?:config|tokenizer|model)|Repo id must|model (?:file )?(?:path )?(?:'[^']*' )?(?:not found|does not exist)|failed to load model|\b401 Client Error\b.*huggingface\.co/i,
  ],
  ['timeout', /TimeoutError|timed out|Timeout waiting|deadline exceeded|watchdog timeout/i],
  [
    'unsupported',
    // transformers models/auto/configuration_auto.py AutoConfig.from_pretrained: `… has model type `x` but
    // Transformers does not recognize this architecture …`: the installed transformers predates the model (upgrade).
    // flash-attn csrc/flash_attn/flash_api.cpp TORCH_CHECKs: `FlashAttention only supports Ampere GPUs or newer.`,
    // `FlashAttention only support fp16 and bf16 data type`
    // ptxas (CUDA toolkit; Triton runs its bundled one and prints its stderr under `PTXASError`): `ptxas fatal   :
    // Value 'sm_121a' is not defined for option 'gpu-name'`: the toolchain predates the GPU's architecture
    // Python's own `TypeError: unsupported operand type(s) for |: …` and CPython's comparison TypeError
    // (Objects/object.c do_richcompare: `'>' not supported between instances of 'NoneType' and 'int'`) are bugs in
    // the code, not unsupported features; `X does not support Y`: a backend refusing a feature (vLLM
    // attention/backends/torch_sdpa.py: `Torch SPDA does not support logits soft cap.`); `X is not implemented for
    // <device or dtype>`: a kernel the build lacks for this hardware (vLLM csrc/quantization/cutlass_w8a8/c3x/
    // scaled_mm_sm120.cu TORCH_CHECK: `Currently, block scaled fp8 gemm is not implemented for Blackwell`; PyTorch's
    // dispatch: `"addmm_impl_cpu_" not implemented for 'Half'`)
    /\bnot (?:yet )?implemented for\b|Value '(?:sm|compute)_\w+' is not defined for option 'gpu-name'|NotImplementedError|not (?:yet )?supported(?! between instances of)|Unsupported(?! operand type)|Transformers does not recognize this architecture|only supported (?:on|for)|\bonly supports? (?:[\w.-]+ ){0,4}(?:GPUs?\b|or newer|data ?types?\b)|requires compute capability|Only SM\d+ is supported|is not available on this|no supported|\bdoes not support\b/i,
  ],
  [
    'config_error',
    /ValidationError|ValueError|argument --?[\w-]+: |unrecognized arguments|error: argument|invalid choice|invalid value '[^']*' for '--|must be divisible by|the following arguments are required|ArgumentError|ArgumentTypeError|is not a valid \w+ ?(?:choice|option)?|error: unexpected argument/i,
  ],
  [
    'killed',
    // bash's report of a job killed by a signal, from a script (jobs.c: `./serve.sh: line 14:  2817 Killed  …`)
    // A Python child's exit code -N is the signal that ended it (multiprocessing Process.exitcode): -9 SIGKILL, -15
    // SIGTERM from outside (an orchestrator, a wrapper's timeout, `kill`), as vLLM V0 executor/multiproc_worker_utils.py
    // WorkerMonitor.run reports a worker it did not stop (`Worker %s pid %s died, exit code: %s`) and SGLang
    // entrypoints/engine.py its schedulers (`Scheduler or DataParallelController %d terminated with %d`, `Exit code:
    // %d`, `Rank %d scheduler died during initialization (exit code: %d)`); a shell's 137/143 are 128+9/15.
    /^(?:\S+: line \d+: +\d+ +)?Killed\b|exit ?code[:=]? ?-(?:9|15)\b|terminated with -(?:9|15)\b|(?:exited|terminated) with (?:exit )?code (?:-9|137|-15|143)\b|code=killed, status=9\b|\bsignal 9\b|SIGKILL|died unexpectedly|\bwas killed\b|OOM killer|oom-kill/i,
  ],
];

/**
 * Causes named only as possibilities ("… (e.g., OOM) or a slow node", "this may be caused by …") are not
 * what happened: they are cut before classifying.
 */
const HEDGES =
  /\((?:e\.g\.|i\.e\.|such as|for example|for instance)[^)]*\)|\b(?:this |it )?(?:may|might|could|can) (?:be|have been) (?:caused|due|because|related) (?:by|to)\b.*|\b(?:possibly|potentially|likely) (?:due to|caused by)\b.*/gi;

export function withoutHedges(text: string): string {
  return text.replace(HEDGES, ' ');
}

export function classifyFailureText(text: string): FailureClass | null {
  const plain = withoutHedges(text);
  for (const [cls, re] of RULES) if (re.test(plain)) return cls;
  return null;
}

/** Python exception types whose mere presence names the class, whatever the message says. */
export function classifyExceptionType(type: string): FailureClass | null {
  if (/OutOfMemoryError$/.test(type)) return 'oom';
  // torch.distributed's store (c10d TCPStore.cpp: `Timed out after N seconds waiting for clients. 1/2 clients
  // joined.`, a rank that cannot reach the master's address): ranks that never met, which the nccl hint is about
  // (every node reaches the init address), not a collective that hung (timeout's hint)
  if (/DistBackendError$|DistStoreError$|NcclError$/i.test(type)) return 'nccl';
  if (/^(?:torch\.)?AcceleratorError$|CudaError$/.test(type)) return 'cuda_error';
  if (/TimeoutError$|Timeout$/.test(type)) return 'timeout';
  if (/NotImplementedError$/.test(type)) return 'unsupported';
  if (
    /RepositoryNotFoundError$|HFValidationError$|GatedRepoError$|LocalEntryNotFoundError$|EntryNotFoundError$/.test(
      type,
    )
  )
    return 'model_not_found';
  if (/ValidationError$|ArgumentError$|ArgumentTypeError$/.test(type)) return 'config_error';
  return null;
}
