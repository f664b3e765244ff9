/**
 * What a server command line asks for, before the server prints anything: which engine it starts and its
 * flags as the config keys the engine's own dump uses (`--tp-size 8` → tp_size: 8), so `firedup launch` can
 * hold them against the config the log shows. Pure: argv in, keys out.
 */

import type { EngineId } from '../base/types.js';
import { isSecretKey, redactConfig } from '../config/redact.js';

export interface ParsedCommand {
  engine: EngineId | null;
  /** What runs: the program's base name, or `python -m MODULE`'s module. */
  program: string;
  /** The argv element that is executed (after wrappers such as `env` and `nohup`). */
  executable: string;
  /** The interpreter, when the command is `python ... -m MODULE` or `python SCRIPT`. */
  python: string | null;
  /** Flags as config keys, secrets redacted; the vLLM/TRT-LLM positional model as `model`. */
  flags: Record<string, unknown>;
}

const basename = (p: string): string => p.slice(p.lastIndexOf('/') + 1);
const isPython = (p: string): boolean => /^(?:python[\d.]*|pypy[\d.]*)$/.test(basename(p));
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Index of the program after `env A=B`, `nohup`, `exec`, `time`, `nice -n N`, `stdbuf -oL` and leading `A=B`. */
function skipWrappers(argv: string[]): number {
  let i = 0;
  while (i < argv.length) {
    const a = argv[i]!;
    const w = basename(a);
    if (ASSIGNMENT.test(a)) i++;
    else if (w === 'nohup' || w === 'exec' || w === 'time') i++;
    else if (w === 'env' || w === 'stdbuf' || w === 'nice') {
      i++;
      // Their options; `env -u NAME` and `nice -n N` take a separate value.
      while (i < argv.length && argv[i]!.startsWith('-')) {
        const o = argv[i]!;
        i += (w === 'env' && o === '-u') || (w === 'nice' && o === '-n') ? 2 : 1;
      }
    } else break;
  }
  return i;
}

/** Python's own options before `-m MODULE` or the script: `-u`, `-O`, `-X dev`, `-W ignore`. */
function skipPythonOptions(
  argv: string[],
  i: number,
): { module: string | null; script: string | null; next: number } {
  while (i < argv.length) {
    const a = argv[i]!;
    if (a === '-m') return { module: argv[i + 1] ?? null, script: null, next: i + 2 };
    if (a.startsWith('-m') && a.length > 2) return { module: a.slice(2), script: null, next: i + 1 };
    if (a === '-X' || a === '-W' || a === '--check-hash-based-pycs') i += 2;
    else if (a.startsWith('-') && a !== '-') i++;
    else return { module: null, script: a, next: i + 1 };
  }
  return { module: null, script: null, next: i };
}

function engineOfModule(mod: string): EngineId | null {
  if (/^sglang(?:\.|$)/.test(mod)) return 'sglang';
  if (/^vllm(?:\.|$)/.test(mod)) return 'vllm';
  if (/^tensorrt_llm(?:\.|$)/.test(mod)) return 'trtllm';
  return null;
}

function engineOfProgram(p: string): EngineId | null {
  if (/llama-server(?:\.exe)?$/.test(p)) return 'llamacpp';
  if (p === 'vllm') return 'vllm';
  if (p === 'sglang') return 'sglang';
  if (p === 'trtllm-serve') return 'trtllm';
  if (p === 'text-generation-launcher') return 'tgi';
  return null;
}

/** Flag spellings that name another key in the engine's dump (`--tp` is SGLang's tp_size). */
const ALIASES: Record<EngineId, Record<string, string>> = {
  sglang: {
    tp: 'tp_size',
    tensor_parallel_size: 'tp_size',
    dp: 'dp_size',
    data_parallel_size: 'dp_size',
    pp: 'pp_size',
    pipeline_parallel_size: 'pp_size',
    ep: 'ep_size',
    expert_parallel_size: 'ep_size',
    model: 'model_path',
  },
  vllm: {
    tp: 'tensor_parallel_size',
    pp: 'pipeline_parallel_size',
    dp: 'data_parallel_size',
    q: 'quantization',
  },
  llamacpp: {
    m: 'model',
    c: 'ctx_size',
    ngl: 'n_gpu_layers',
    gpu_layers: 'n_gpu_layers',
    np: 'parallel',
    t: 'threads',
    b: 'batch_size',
    ub: 'ubatch_size',
    fa: 'flash_attn',
    a: 'alias',
    hf: 'hf_repo',
    hfr: 'hf_repo',
  },
  tgi: {},
  trtllm: { tensor_parallel_size: 'tp_size', pipeline_parallel_size: 'pp_size' },
};

/** Flags that take several values (argparse `nargs='+'`): the others take one, and later words are positional. */
const MULTI = new Set([
  'served_model_name',
  'cuda_graph_bs',
  'lora_paths',
  'lora_modules',
  'allowed_origins',
]);

/** Switches: they take a value only when it is written `--flag=x` or is a boolean word. */
const SWITCH =
  /^(?:enable|disable|no|skip)_|^(?:trust_remote_code|enforce_eager|cont_batching|mlock|no_mmap|metrics|embedding|jinja|verbose|slots|reranking|help)$/;
const BOOL_WORD = /^(?:true|false|True|False|1|0|yes|no|on|off)$/;

const flagLike = (a: string): boolean => a.startsWith('-') && a.length > 1 && !/^-\d/.test(a);

/** A command-line word as the value a config dump would print: numbers as numbers, JSON parsed. */
export function parseValue(s: string): unknown {
  if (/^-?\d+$/.test(s)) {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : s;
  }
  if (/^-?(?:\d+\.\d*|\.\d+|\d+(?:\.\d*)?e[-+]?\d+)$/i.test(s)) return Number(s);
  if (s === 'true' || s === 'True') return true;
  if (s === 'false' || s === 'False') return false;
  if (s === 'None' || s === 'null') return null;
  if (/^[[{]/.test(s)) {
    try {
      return JSON.parse(s);
    } catch {
      return s;
    }
  }
  return s;
}

const toKey = (name: string): string => name.replace(/-/g, '_');

/**
 * A key given to a secret flag may start with `-` (one base64url key in 64 does): llama-server's parser
 * (common/arg.cpp) takes the word after `--api-key` whatever it is, and `-Zq8…`, a dash and eight or more key
 * characters, is no flag any engine has. Read as a flag, it was "asked" as a flag and the check failed.
 */
function dashLedSecret(key: string, next: string | undefined): boolean {
  return next !== undefined && isSecretKey(key) && /^-[A-Za-z0-9_][A-Za-z0-9_-]{7,}$/.test(next);
}

/** `--name value`, `--name=value`, `-m value`, switches, repeated multi-value flags; the rest are positionals. */
function parseFlags(
  args: string[],
  engine: EngineId | null,
): { flags: Record<string, unknown>; positionals: string[] } {
  const flags: Record<string, unknown> = {};
  const positionals: string[] = [];
  const aliases = engine ? ALIASES[engine] : {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!flagLike(a)) {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const raw = a.replace(/^--?/, '');
    const name = toKey(eq > 0 ? raw.slice(0, raw.indexOf('=')) : raw);
    let key = aliases[name] ?? name;
    let value: unknown;
    if (eq > 0) value = parseValue(a.slice(eq + 1));
    else if (dashLedSecret(key, args[i + 1])) value = args[++i]!;
    else {
      const next = args[i + 1];
      if (next === undefined || flagLike(next) || (SWITCH.test(key) && !BOOL_WORD.test(next))) value = true;
      else if (MULTI.has(key)) {
        const vals: unknown[] = [];
        while (i + 1 < args.length && !flagLike(args[i + 1]!)) vals.push(parseValue(args[++i]!));
        value = vals.length === 1 ? vals[0] : vals;
      } else value = parseValue(args[++i]!);
    }
    // vLLM's BooleanOptionalAction: `--no-enable-prefix-caching` is enable_prefix_caching=False.
    if (engine === 'vllm' && key.startsWith('no_') && value === true) {
      key = key.slice(3);
      value = false;
    }
    flags[key] = value;
  }
  return { flags, positionals };
}

/** Reads a server command line: the engine it starts and the flags it asks for. */
export function parseCommand(argv: string[], engineHint?: EngineId | null): ParsedCommand {
  const at = skipWrappers(argv);
  const executable = argv[at] ?? '';
  let program = basename(executable);
  let python: string | null = null;
  let engine: EngineId | null = null;
  let rest = argv.slice(at + 1);
  let positionalModel = false;
  if (isPython(executable)) {
    python = executable;
    const p = skipPythonOptions(argv, at + 1);
    rest = argv.slice(p.next);
    if (p.module) {
      program = p.module;
      engine = engineOfModule(p.module);
      // `python -m vllm.entrypoints.cli.main serve MODEL` is `vllm serve MODEL`.
      if (rest[0] === 'serve') {
        rest = rest.slice(1);
        positionalModel = true;
      }
    } else if (p.script) {
      program = basename(p.script);
      engine = /sglang/.test(p.script) ? 'sglang' : /vllm/.test(p.script) ? 'vllm' : null;
    }
  } else {
    engine = engineOfProgram(program);
    if ((program === 'vllm' || program === 'sglang' || program === 'trtllm-serve') && rest[0] === 'serve') {
      rest = rest.slice(1);
      positionalModel = program !== 'sglang';
    } else if (program === 'trtllm-serve') positionalModel = true;
  }
  engine = engineHint ?? engine;
  const { flags, positionals } = parseFlags(rest, engine);
  if (positionalModel && positionals[0] !== undefined && flags.model === undefined)
    flags.model = positionals[0];
  return { engine, program, executable, python, flags: redactConfig(flags) };
}

/** Where the command makes the server listen, for the HTTP probe (a wildcard address is probed on loopback). */
export function intendedUrl(flags: Record<string, unknown>): string | undefined {
  const port = flags.port;
  if (typeof port !== 'number' || !Number.isInteger(port) || port <= 0 || port > 65535) return undefined;
  const h = flags.host ?? flags.hostname;
  const host = typeof h === 'string' && h !== '' && h !== '0.0.0.0' && h !== '::' ? h : '127.0.0.1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
