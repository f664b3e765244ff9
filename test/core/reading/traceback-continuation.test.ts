/**
 * An exception's message over several lines: the lines after the `Type: message` line that carry on the message
 * (same prefix, no blank, no new traceback, frame, exception or record; a few lines at most) may name the cause.
 * Their class replaces the exception's own only where that is generic. Made-up tracebacks of each shape.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyFailureText } from '../../../src/core/base/failure-class.js';
import { analyzeText } from '../../helpers.js';

const failure = (lines: string[]) => {
  const r = analyzeText(lines.join('\n'));
  return r.launches[r.launches.length - 1]!.failure;
};

const vl = (t: string, msg: string, level = 'INFO', src = 'core.py:90') =>
  `(EngineCore_DP0 pid=71) ${level} 03-01 10:00:${t} [${src}] ${msg}`;
const err = (msg: string) => vl('20', msg, 'ERROR', 'core.py:708');

const START = [
  vl('01', 'Starting to load model Qwen/Qwen3-8B...', 'INFO', 'gpu_model_runner.py:2602'),
  vl('09', 'Loading weights took 7.91 seconds', 'INFO', 'default_loader.py:267'),
  err('EngineCore failed to start.'),
  err('Traceback (most recent call last):'),
  err('  File "/usr/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 699, in run_engine_core'),
  err('    engine_core = EngineCoreProc(*args, **kwargs)'),
  err(
    '  File "/usr/lib/python3.12/site-packages/triton/backends/nvidia/compiler.py", line 424, in make_cubin',
  ),
  err('    raise PTXASError(f"{error}\\n"'),
];
const PTXAS = [
  ...START,
  err('triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error'),
  err('`ptxas` stderr:'),
  err("ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'"),
];

describe("an exception's continuation lines", () => {
  it("read ptxas' unknown architecture as unsupported", () => {
    assert.equal(
      classifyFailureText("ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'"),
      'unsupported',
    );
  });

  it('name the class of a generic exception (Triton PTXASError with ptxas stderr)', () => {
    const f = failure(PTXAS);
    assert.equal(f?.class, 'unsupported');
    // the evidence stays the exception line
    assert.equal(f?.line, 9);
    assert.equal(f?.exceptionType, 'triton.runtime.errors.PTXASError');
    assert.match(f?.message ?? '', /sm_121a/);
  });

  it('also when the exception was not prefixed by a logger (raw stderr)', () => {
    const f = failure([
      vl('01', 'Starting to load model Qwen/Qwen3-8B...', 'INFO', 'gpu_model_runner.py:2602'),
      'Traceback (most recent call last):',
      '  File "/usr/lib/python3.12/site-packages/triton/backends/nvidia/compiler.py", line 424, in make_cubin',
      '    raise PTXASError(f"{error}\\n"',
      'triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error',
      '`ptxas` stderr:',
      "ptxas fatal   : Value 'sm_90a' is not defined for option 'gpu-name'",
    ]);
    assert.equal(f?.class, 'unsupported');
  });

  it('end at a line of another prefix, a blank line, a new traceback, or past the window', () => {
    const pt = 'triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error';
    const ptxas = "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'";
    // another process's line (another prefix)
    assert.equal(failure([...START, err(pt), `(APIServer pid=1) ${ptxas}`])?.class, 'python_exception');
    // another record of the same process (another logger source)
    assert.equal(
      failure([...START, err(pt), vl('21', ptxas, 'ERROR', 'other.py:12')])?.class,
      'python_exception',
    );
    // a blank line, then unrelated text
    assert.equal(failure([...START, err(pt), err(''), err(ptxas)])?.class, 'python_exception');
    // a new traceback
    assert.equal(
      failure([...START, err(pt), err('Traceback (most recent call last):'), err(ptxas)])?.class,
      'python_exception',
    );
    // bounded: a few lines only
    const filler = Array.from({ length: 8 }, (_, i) => err(`  detail ${i}`));
    assert.equal(failure([...START, err(pt), ...filler, err(ptxas)])?.class, 'python_exception');
    // a c10 warning on stderr after a raw traceback is a record of its own
    assert.equal(
      failure([
        'Traceback (most recent call last):',
        '  File "/usr/lib/python3.12/site-packages/flashinfer/comm/fd_exchange.py", line 55, in <module>',
        "TypeError: type 'array.array' is not subscriptable",
        '[rank0]:[W812 04:47:26.793554487 ProcessGroupNCCL.cpp:1624] Warning: WARNING: destroy_process_group() was not called before program exit',
      ])?.class,
      'python_exception',
    );
  });

  it('leave a specific first-line class as it is (CUDA error; NCCL error with Last error: out of memory)', () => {
    assert.equal(
      failure([
        ...START,
        err('RuntimeError: CUDA error: an illegal memory access was encountered'),
        err(
          'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
        ),
        err('For debugging consider passing CUDA_LAUNCH_BLOCKING=1'),
      ])?.class,
      'cuda_error',
    );
    assert.equal(
      failure([
        ...START,
        err(
          'torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5',
        ),
        err('ncclUnhandledCudaError: Call to CUDA function failed.'),
        err('Last error:'),
        err("Cuda failure 'out of memory'"),
      ])?.class,
      'nccl',
    );
  });

  it('replace a class the exception type alone gave (a ValueError whose next line names the cause)', () => {
    const f = failure([
      ...START.slice(0, 6),
      err('ValueError: Cannot use the requested quantization for this model.'),
      err('fp8 is not supported on this GPU.'),
    ]);
    assert.equal(f?.class, 'unsupported');
    // the message's own words name it: it stands
    assert.equal(
      failure([
        ...START.slice(0, 6),
        err('ValueError: --max-model-len must be divisible by the block size'),
        err('fp8 is not supported on this GPU.'),
      ])?.class,
      'config_error',
    );
  });

  it("take a compiler backend's failure from the exception printed on its next line", () => {
    const f = failure([
      ...START.slice(0, 6),
      err("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:"),
      err('RuntimeError: CUDA error: no kernel image is available for execution on the device'),
    ]);
    assert.equal(f?.class, 'cuda_error');
  });

  it('a torch state_dict size mismatch names no class of its own: the exception stays generic', () => {
    const f = failure([
      ...START.slice(0, 6),
      err('RuntimeError: Error(s) in loading state_dict for Linear:'),
      err(
        '\tsize mismatch for weight: copying a param with shape torch.Size([4096, 4096]) from checkpoint, the shape in current model is torch.Size([2048, 4096]).',
      ),
    ]);
    assert.equal(f?.class, 'python_exception');
  });

  it('a numbered remedy after the exception is a hint, not its cause', () => {
    const f = failure([
      ...START.slice(0, 6),
      err('RuntimeError: Failed to start the scheduler.'),
      err('Possible solutions:'),
      err('1. The GPU ran out of memory: lower --mem-fraction-static'),
    ]);
    assert.notEqual(f?.class, 'oom');
  });
});
