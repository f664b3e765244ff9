/**
 * What of a launch's environment and command line is worth keeping, and safe to keep: the variables that
 * change how an inference server runs (GPUs, NCCL, the engine's own switches, caches), with credentials
 * replaced by `<redacted>` before anything is written to the ledger or printed. Pure.
 */
import { isSecretKey, REDACTED, redactText } from '../config/redact.js';

/** Variables kept by name or prefix: they decide devices, communication, the engine's behaviour and where weights come from. */
const KEPT_NAMES = new Set([
  'CUDA_VISIBLE_DEVICES',
  'HIP_VISIBLE_DEVICES',
  'ROCR_VISIBLE_DEVICES',
  'OMP_NUM_THREADS',
  'MASTER_ADDR',
  'MASTER_PORT',
  'WORLD_SIZE',
  'RANK',
  'LOCAL_RANK',
  'PYTHONPATH',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'LD_LIBRARY_PATH',
  'LD_PRELOAD',
  'HF_HOME',
  'HF_TOKEN',
]);
const KEPT_PREFIXES = [
  'CUDA_',
  'NCCL_',
  'NVSHMEM_',
  'GLOO_',
  'UCX_',
  'SGLANG_',
  'SGL_',
  'VLLM_',
  'TORCH_',
  'TORCHINDUCTOR_',
  'PYTORCH_',
  'TRITON_',
  'FLASHINFER_',
  'HF_',
  'HUGGING_FACE_',
  'TRANSFORMERS_',
  'TRTLLM_',
  'TLLM_',
  'TENSORRT_LLM_',
  'LLAMA_',
  'GGML_',
  'NVIDIA_',
];

/** Names that hold credentials (`*TOKEN*`, `*KEY*`, `*SECRET*`, `*PASSWORD*`); isSecretKey adds the config rules. */
const SECRET_NAME = /TOKEN|KEY|SECRET|PASSW|CREDENTIAL/i;

export function isKeptEnv(name: string): boolean {
  return KEPT_NAMES.has(name) || KEPT_PREFIXES.some((p) => name.startsWith(p));
}

/** The kept variables, sorted by name, secret values redacted (an empty value stays visible). */
export function selectEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(env).sort()) {
    const v = env[name];
    if (v === undefined || !isKeptEnv(name)) continue;
    out[name] = v !== '' && (SECRET_NAME.test(name) || isSecretKey(name)) ? REDACTED : redactText(v);
  }
  return out;
}

const flagName = (a: string): string | null => {
  const m = /^--?([A-Za-z][\w-]*)(?:=|$)/.exec(a);
  return m ? m[1]! : null;
};

/**
 * The command line with secret values redacted: `--api-key X`, `--api-key=X`, `HF_TOKEN=x` before the
 * program, and token-shaped words anywhere (`hf_...`, `sk-...`).
 */
export function redactArgv(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const assign = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(a);
    if (assign && (SECRET_NAME.test(assign[1]!) || isSecretKey(assign[1]!))) {
      out.push(`${assign[1]}=${assign[2] === '' ? '' : REDACTED}`);
      continue;
    }
    const name = flagName(a);
    if (name && isSecretKey(name)) {
      const eq = a.indexOf('=');
      if (eq > 0) out.push(`${a.slice(0, eq + 1)}${REDACTED}`);
      else {
        out.push(a);
        const next = argv[i + 1];
        // The next word is the secret unless it is the next flag (`--port`, `-tp`): a key may begin with `-`.
        if (next !== undefined && !/^--|^-[A-Za-z]{1,4}$/.test(next)) {
          out.push(REDACTED);
          i++;
        }
      }
      continue;
    }
    out.push(redactText(a));
  }
  return out;
}
