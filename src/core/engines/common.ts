/**
 * Lines any engine can print because they come from PyTorch, NCCL, the C runtime or the shell: tried after
 * the engine's own signatures.
 */
import type { Signature } from './types.js';

export const commonSignatures: Signature[] = [
  // A shell prompt that starts a server: pastes and terminal captures hold several launches this way.
  {
    id: 'shell_launch',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: ' ',
    re: /^(?:\([\w.-]+\) )?(?:[\w.-]+@[\w.-]+:\S*)?[$#] +(?:\w+=\S+ +)*(?:nohup +)?(?:python3? +-m +(?:sglang\.launch_server|vllm\.entrypoints\.\S+)|sglang +serve|vllm +serve|text-generation-launcher|llama-server|trtllm-serve)\b/,
  },
  {
    // pip's own output (pip/_internal/commands/install.py `Installing collected packages: …`, `Successfully
    // installed …`; req_command.py warn_if_run_as_root, later utils/misc.py, `Running pip as the 'root' user …`;
    // the resolver's `Requirement already satisfied: X in /path`; vcs/git.py Git.fetch_new through
    // utils/subprocess.py call_subprocess `Running command git clone … /tmp/pip-req-build-…`): no server runs
    // pip, a container's or script's command does before it starts one. After a launch that ended, it is that
    // command running again (a restart policy's loop); before anything, the start of the one launch. Printed
    // several times over: a repeat before the launch got anywhere is the same start (perProcess).
    id: 'pip_install',
    kind: 'launch',
    phase: 'args',
    perProcess: true,
    lit: ' ',
    re: /^(?:WARNING: )?Running pip as the 'root' user can result in broken permissions|^Successfully installed [\w.-]+-\d|^Installing collected packages: \w|^Requirement already satisfied: \S+ in \/|^\s*Running command git clone (?:--[\w=:-]+ )*\S+ \S*\/pip-(?:req-build|install)-/,
  },
  // c10d's own error lines: `[rank3]:[E421 04:13:43.4266 ProcessGroupGloo.cpp:143] ...`; PyTorch up to 2.1
  // printed c10's log prefix without the date: `[E ProcessGroupNCCL.cpp:828] [Rank 0] Watchdog caught …`
  {
    id: 'c10d_error',
    kind: 'failure',
    lit: '[E',
    re: /^(?:\[rank\d+\]:)?\[E(?:\d{3,4}(?: [\d:.]+)?(?: \d+)?)? [\w.-]+\.(?:cpp|cc|cu|h|hpp|ts|c):\d+\] (.*)$/,
  },
  {
    id: 'nccl_watchdog',
    kind: 'failure',
    failure: 'nccl',
    lit: 'Watchdog caught collective operation timeout',
    re: /Watchdog caught collective operation timeout/,
  },
  {
    // NCCL prints these whenever a communicator is made or torn down (src/init.cc ncclCommInitRank → `Init
    // COMPLETE`, commDestroy → `Destroy COMPLETE`), and PyTorch makes a group's communicator lazily, at its first
    // collective (ProcessGroupNCCL getNCCLComm): they come at start-up, but also after the server is up and at its
    // shutdown. They say a communicator is being set up, never that the server started again.
    id: 'nccl_info',
    kind: 'phase',
    phase: 'dist_init',
    weak: true,
    lit: 'NCCL INFO',
    re: /NCCL INFO (?:Bootstrap|NET\/|Init COMPLETE|comm 0x|cudaDriverVersion|NCCL version|Channel \d+|Connected all|Using network)/,
  },
  {
    // NCCL's own report of a call that failed (src/debug.cc ncclDebugLog: `host:pid:tid [dev] file.cc:N NCCL WARN
    // msg`, the level NCCL_DEBUG documents as `messages indicating a fatal error`), and the return code it hands up
    // through each caller (src/include/checks.h NCCLCHECK and kin: `INFO(NCCL_ALL, "%s:%d -> %d", …)`, since
    // 2.2x `file.cc:N (func) -> N`), up to the API call PyTorch or the engine's pynccl made. By itself a warning
    // (a caller may try another transport and go on): it names the class of a traceback cut right after it.
    id: 'nccl_error',
    kind: 'degraded',
    failure: 'nccl',
    lit: 'NCCL ',
    re: /\bNCCL WARN \S|\bNCCL INFO [\w./-]+\.(?:cc|cu|cpp|c|h):\d+(?: \([\w:~<>]+\))? -> [1-9]\d*\b/,
  },
  {
    // torch.compile with max-autotune: Inductor benchmarks its kernel choices
    // (torch/_inductor/select_algorithm.py AlgorithmSelectorCache.log_results: `AUTOTUNE mm(4x4096, 4096x8)`, then
    // `SingleProcess AUTOTUNE benchmarking takes %.4f seconds and %.4f seconds precompiling`): the model is being
    // compiled. Compile, not autotune: vLLM compiles before sizing its KV cache (types.ts ENGINE_RANK), and an
    // engine's own autotune step (FlashInfer's, TensorRT-LLM's) is another one.
    id: 'inductor_autotune',
    kind: 'phase',
    phase: 'compile',
    weak: true,
    lit: 'AUTOTUNE',
    re: /^(?:SingleProcess|SubProcess) AUTOTUNE benchmarking takes [\d.]+ seconds|^AUTOTUNE \w+\(\d+x\d+/,
  },
  {
    // Gloo (PyTorch's CPU collectives; gloo/rendezvous/context.cc Context::connectFullMesh) once a process group's
    // ranks are connected: `[Gloo] Rank 0 is connected to 7 peer ranks. Expected number of connected peer ranks is
    // : 7`. The engines make their Gloo groups at distributed init (SGLang's and vLLM's parallel_state), a group can
    // also be made later: like NCCL's lines it shows distributed init and never opens a launch.
    id: 'gloo_connected',
    kind: 'phase',
    phase: 'dist_init',
    weak: true,
    lit: 'peer ranks',
    re: /^(?:\[Gloo\] )?Rank \d+ is connected to \d+ peer ranks\. Expected number of connected peer ranks/,
  },
  {
    // ROCm's runtime (rocclr rocdevice.cpp) aborting a queue: a device fault, the HIP analogue of a CUDA error
    id: 'hsa_abort',
    kind: 'failure',
    failure: 'cuda_error',
    lit: 'HSA_STATUS_ERROR',
    re: /aborting with error : (HSA_STATUS_ERROR_\w+.*)$/,
  },
  {
    // ROCr's GPU page-fault handler (ROCR-Runtime runtime/hsa-runtime/core/runtime/runtime.cpp
    // Runtime::VMFaultHandler: `Memory access fault by GPU node-%u (Agent handle: %p) on address %p%s. Reason: %s.`),
    // then abort(): a device fault, the HIP analogue of an illegal memory access. Printed to stderr by the runtime,
    // so in pastes it often follows a tqdm bar on the same line: not anchored.
    id: 'rocr_vm_fault',
    kind: 'failure',
    failure: 'cuda_error',
    lit: 'Memory access fault by GPU',
    re: /(Memory access fault by GPU node-\d+ \(Agent handle: \S+\) on address .*)$/,
  },
  {
    // Triton Inference Server: core model_lifecycle.cc ModelLifeCycle::AsyncLoad `loading: <model>:<version>` as a
    // model's load starts (its backend's own lines follow); too little literal text for the engine-source catalog.
    // The hosted engine's own start line may follow: the analyzer takes it for this load, not a relaunch (hostOnly)
    id: 'triton_loading',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'loading: ',
    re: /^"?loading: [^\s:"]+:\d+"?$/,
  },
  {
    // Triton Inference Server, whatever backend runs the model (tensorrtllm, vllm, python): src/main.cc creates the
    // server (which loads every model of the repository; a failed load ends it with `error: creating server: …`)
    // and only then starts the endpoints: grpc/grpc_server.cc `Started GRPCInferenceService at %s`,
    // http_server.cc `Started HTTPService at %s` (before 20.06 the gRPC service was `GRPCService`); the message in
    // double quotes where Triton escapes its log records, its default now (qa/L0_logging/log_format_test.py:
    // `I0205 18:34:18.707423 1 file.cc:123] "msg"`); StartEndpoints starts the metrics endpoint last
    // (http_server.cc `Started Metrics Service at %s`), after the model repository is loaded like the others
    id: 'triton_endpoint',
    kind: 'ready',
    phase: 'ready',
    lit: 'Started ',
    re: /^"?Started (?:GRPCInferenceService|GRPCService|HTTPService|Metrics Service) at [^\s"]+/,
  },
  {
    // The same server's gRPC endpoint, verbose (`--log-verbose=1`): grpc/grpc_server.cc (servers/grpc_server_v2.cc
    // since 2020) CommonCallData's constructor logs `Ready for RPC '<name>', <id>` as each non-inference handler
    // (Check, ServerLive, ServerReady, ModelReady, …) is registered: at id 0 from Server::Start, which main.cc's
    // StartEndpoints runs only once TRITONSERVER_ServerNew has loaded the model repository, just before `Started
    // GRPCInferenceService at`; again, with the next id, after each such RPC is answered (a health or metadata
    // probe, not an inference request). Either way the server is up.
    id: 'triton_grpc_ready',
    kind: 'ready',
    phase: 'ready',
    lit: 'Ready for RPC',
    re: /^"?Ready for RPC '\w+', \d+"?$/,
  },
  {
    // UCX's signal handler (ucs_handle_error), printed by MPI-launched engines: `[host:pid:tid] Caught signal 11 (…)`
    id: 'ucx_signal',
    kind: 'failure',
    lit: 'Caught signal',
    re: /^\[[\w.-]+:\d+\s*(?::\d+)+\] Caught signal (\d+) \(([^)]*)\)/,
  },
  {
    // Slurm's step daemon ending the job: the server did not stop by itself
    id: 'slurm_cancel',
    kind: 'failure',
    failure: 'killed',
    lit: 'slurmstepd',
    re: /^slurmstepd(?:-[\w.-]+)?: error: \*\*\* (?:JOB|STEP) \S+ ON \S+ CANCELLED AT \S+(?: DUE TO [A-Z ]+)?|^slurmstepd(?:-[\w.-]+)?: error: Detected \d+ oom[_-]kill event/,
  },
  {
    // CPython's multiprocessing/resource_tracker.py warns at exit about semaphores and shared memory that the
    // processes which created them never released: every server process is gone, without its own cleanup
    id: 'leaked',
    kind: 'shutdown',
    beforeReady: 'killed',
    lit: 'leaked',
    re: /resource_tracker: There appear to be \d+ leaked/,
  },
  // Python argparse's exit on a bad argument (after its usage text): `api_server.py: error: unrecognized …`.
  {
    id: 'argparse_error',
    kind: 'failure',
    failure: 'config_error',
    lit: ': error: ',
    re: /^(?:\S+\.py|vllm(?: \w+)?|sglang(?: \w+)?|trtllm-\w+): error: (.+)$/,
  },
  { id: 'killed', kind: 'consequence', lit: 'Killed', re: /^(?:\S+: line \d+: +\d+ )?Killed\b/ },
  {
    // Docker Compose's own line when a service's container stops (compose v1 `app exited with code 137`, v2
    // `app-1 exited with code 137`, printed without the service's gutter; v2 adds ` (restarting)` when the service's
    // restart policy starts it again): the server process is gone. Exit code 0 is a clean stop and says nothing
    // here; 137 is 128 + SIGKILL, which the failure classes read as killed.
    id: 'container_exit',
    kind: 'consequence',
    lit: 'exited with code',
    re: /^[\w.-]+ exited with code [1-9]\d*(?: \(restarting\))?$/,
  },
  {
    // systemd's unit lines (src/core/service.c service_sigchld_event): `app.service: Main process exited,
    // code=killed, status=9/KILL` (code=exited with a nonzero status, code=dumped for a core): the server is gone
    id: 'systemd_exit',
    kind: 'consequence',
    lit: 'Main process exited',
    re: /^[\w@.-]+\.service: Main process exited, code=(?:killed|dumped|exited), status=(?!0\/)\d+/,
  },
  {
    // The C++ runtime's std::terminate handler (libstdc++ __verbose_terminate_handler): an exception no one
    // caught, then abort(). The C++ engines and libraries (llama.cpp, TensorRT-LLM's runtime, c10's NCCL
    // watchdog) end this way; the `what():` line under it is the cause.
    id: 'cpp_terminate',
    kind: 'failure',
    lit: 'terminate called',
    re: /^terminate called (?:after throwing an instance of '([^']+)'|without an active exception|recursively)/,
  },
  {
    // PyTorch's own std::terminate handler (c10/util/AbortHandler.h terminate_handler, installed by default on
    // Windows): `Unhandled exception caught in c10/util/AbortHandler.h`, the native backtrace, then abort(): the
    // Windows face of libstdc++'s `terminate called after throwing …`, in any program that loads torch
    id: 'c10_terminate',
    kind: 'failure',
    lit: 'Unhandled exception caught in c10',
    re: /^Unhandled exception caught in c10\/util\/AbortHandler\.h$/,
  },
  { id: 'cpp_what', kind: 'failure', lit: 'what():', re: /^\s*what\(\): +(.+)$/ },
  { id: 'aborted', kind: 'consequence', lit: 'Aborted', re: /^Aborted(?: \(core dumped\))?$/ },
  {
    // A frame of a C++ backtrace as PyTorch's c10 prints it (c10/util/Backtrace.cpp get_backtrace: `frame #%d:
    // %s + 0x%x (0x%x in %s)`, under `Exception raised from … (most recent call first):`): the stack a c10::Error
    // carries in its what(), printed when that exception surfaces (a Python traceback's last line, or
    // `terminate called after throwing …`): the process that printed it is dying. A consequence: the message
    // above it, when the paste kept it, names the class.
    id: 'c10_backtrace_frame',
    kind: 'consequence',
    lit: 'frame #',
    re: /^frame #\d+: .* \(0x[0-9a-f]+ in [^)]+\)$/,
  },
  {
    // A C `assert()` that failed, then abort(): glibc assert/assert.c __assert_fail_base prints `prog: file:line:
    // function: Assertion `expr' failed.` (program name first when known). The C/C++ engines (llama.cpp's
    // libstdc++-debug builds, TensorRT-LLM's runtime) and their libraries die this way.
    id: 'c_assert',
    kind: 'failure',
    failure: 'other',
    lit: 'Assertion `',
    re: /^(?:[\w./-]+: )?\S+:\d+: [^\n]*?Assertion `.*' failed\.$/,
  },
  {
    // A CUDA kernel's device-side assert (CUDA's device assert, as PyTorch's CUDA_KERNEL_ASSERT and
    // _assert_async use it): `TensorCompare.cu:112: _assert_async_cuda_kernel: block: [0,0,0], thread: [0,0,0]
    // Assertion `` failed.`, one per failing thread; the kernel's error reaches the host at the next sync
    id: 'cuda_device_assert',
    kind: 'failure',
    failure: 'cuda_error',
    lit: 'Assertion `',
    re: /^\S+\.cuh?:\d+: .*block: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] Assertion `.*` failed\.$/,
  },
  {
    // zsh's report of a foreground job that a signal ended (Src/jobs.c printjob with the signal's text from
    // Src/signames: `zsh: abort      ./run.sh`, `zsh: segmentation fault  …`): the server process is gone
    id: 'zsh_signal',
    kind: 'consequence',
    lit: 'zsh: ',
    re: /^zsh: (?:abort|segmentation fault|bus error|illegal hardware instruction|killed)(?: \(core dumped\))? +\S/,
  },
  {
    // gdb's stop on a fatal signal (gdb/infrun.c print_signal_received_reason: `Thread N "name" received signal
    // SIGABRT, Aborted.`), as pastes of a server run under gdb show it: the process died there
    id: 'gdb_signal',
    kind: 'consequence',
    lit: 'received signal SIG',
    re: /^(?:Thread \d+ "[^"]*"|Program) received signal (SIG(?:ABRT|SEGV|BUS|FPE|ILL)), /,
  },
  {
    // A bare `$` prompt alone on its line in a paste of a foreground server's terminal: the shell got its terminal
    // back, so the server process is gone. (A prompt with a command is the next launch; a `user@host:~$` prompt
    // also comes back over a server run in the background, `&`, and says nothing.)
    id: 'shell_prompt_back',
    kind: 'consequence',
    lit: '$',
    re: /^\$\s*$/,
  },
  {
    // A GPU runtime call that failed, on a line of its own: llama.cpp's ggml-cuda.cu ggml_cuda_error (`CUDA
    // error: %s`, GGML_CUDA_NAME is ROCm on HIP builds, MUSA on MUSA), then GGML_ABORT; PyTorch's c10 CUDA
    // check text when its exception line is cut. Common: it is no evidence of llama.cpp by itself. rocBLAS
    // (library/src/tensile_host.cpp) prints `rocBLAS error: Could not initialize Tensile host: No devices found` (or
    // `Cannot read …TensileLibrary.dat`) and aborts the process: ROCm's BLAS has no device it can run on
    id: 'gpu_runtime_error',
    kind: 'failure',
    lit: ' error: ',
    re: /^((?:CUDA|ROCm|MUSA|rocBLAS) error: .+)$/,
  },
  {
    // Windows' structured exceptions that end a process (ntstatus.h: STATUS_ACCESS_VIOLATION 0xC0000005,
    // STATUS_STACK_BUFFER_OVERRUN 0xC0000409, which abort() and __fastfail raise, STATUS_STACK_OVERFLOW 0xC00000FD,
    // STATUS_ILLEGAL_INSTRUCTION 0xC000001D, …), as a crash-dump monitor reports them (Sysinternals ProcDump:
    // `[01:16:13]Exception: C0000005.ACCESS_VIOLATION`, then `Unhandled: …` and its dump), as Windows Error
    // Reporting does (`Exception code: 0xc0000005`), or CPython's faulthandler (faulthandler.c
    // faulthandler_exc_handler: `Windows fatal exception: access violation`): the native crash Linux calls a
    // segfault or an abort, classed as firedup classes those. Before the traceback reader's `Exception: …`.
    id: 'windows_exception',
    kind: 'failure',
    failure: 'other',
    lit: '0000',
    re: /^(?:(?:Exception|Unhandled): C0000[0-9A-F]{3}\.[A-Z_]+|Exception code: 0x[cC]0000[0-9a-fA-F]{3}\b)/,
  },
  {
    id: 'windows_fatal_exception',
    kind: 'failure',
    failure: 'other',
    lit: 'Windows fatal exception: ',
    re: /^Windows fatal exception: (?:access violation|stack overflow|illegal instruction|in page error|int divide by zero)/,
  },
  {
    id: 'segfault',
    kind: 'failure',
    // (no substring all three share, `Fatal Python error: Aborted` among them: anchored, the regex is its own
    // quick reject)
    // (the shell's words for the signal that killed its child, strsignal: SIGSEGV, SIGBUS, SIGILL — an instruction
    // this CPU lacks, a build for another CPU — and SIGFPE)
    re: /^(?:Segmentation fault|Fatal Python error: (.*)|Bus error|(?:Illegal instruction|Floating point exception)(?: \(core dumped\))?$)(?: \(core dumped\))?/,
  },
];
