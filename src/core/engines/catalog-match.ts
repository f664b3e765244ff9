/**
 * Matches a message against the engines' own log templates and raise messages (the generated catalogs in
 * ./catalog/, from the engines' sources; see scripts/gen-engine-catalog.mjs). A message is tested only
 * against a handful of templates: those whose leading literal starts with the message's first characters,
 * and the few that start with a placeholder, behind an `includes` of their longest literal. Regexes are
 * compiled on first use, so a log that never reaches the catalog pays nothing for it.
 */
import { classifyFailureText } from '../base/failure-class.js';
import { lineLiterals, nextCandidate } from '../base/literal-index.js';
import type { EngineId, FailureClass } from '../base/types.js';
import { CATALOG as LLAMACPP } from './catalog/llamacpp.js';
import { CATALOG as LMDEPLOY } from './catalog/lmdeploy.js';
import { CATALOG as OLLAMA } from './catalog/ollama.js';
import { CATALOG as SGLANG } from './catalog/sglang.js';
import { CATALOG as TGI } from './catalog/tgi.js';
import { CATALOG as TRITON } from './catalog/triton.js';
import { CATALOG as TRTLLM } from './catalog/trtllm.js';
import { CATALOG as VLLM } from './catalog/vllm.js';
import { catalogMessage } from './catalog-message.js';
import type { CatalogData, CatalogPhase, CatalogScope } from './catalog-types.js';

/** Leading characters the index keys on (the generator's KEY_PREFIX). */
const KEY_PREFIX = 6;

interface Entry<T> {
  src: string;
  re: RegExp | null;
  /** The leading literal (`prefix`) or a literal the message must contain. */
  lit: string;
  prefix: boolean;
  weight: number;
  value: T;
}

class Index<T> {
  private readonly byLead = new Map<string, Array<Entry<T>>>();
  private readonly floating: Array<Entry<T>> = [];
  /**
   * The first floating template's entry in `lineLiterals` (the others follow it, in `floating`'s order): a message
   * is looked up in each engine's catalog (and in every one by `catalogOwner`), and one pass over it says which
   * templates of all of them it may hold.
   */
  private floatingFrom = 0;

  add(src: string, key: string, weight: number, value: T): void {
    const prefix = key.startsWith('^');
    const lit = prefix ? key.slice(1) : key;
    const e: Entry<T> = { src, re: null, lit, prefix, weight, value };
    if (!prefix) {
      this.floating.push(e);
      return;
    }
    const k = lit.slice(0, KEY_PREFIX);
    const list = this.byLead.get(k);
    if (list) list.push(e);
    else this.byLead.set(k, [e]);
  }

  /** Most specific first, so the first match is the best one. */
  seal(): this {
    const byWeight = (a: Entry<T>, b: Entry<T>) => b.weight - a.weight;
    for (const list of this.byLead.values()) list.sort(byWeight);
    this.floating.sort(byWeight);
    this.floatingFrom = lineLiterals.addAll(this.floating.map((e) => [e.lit]));
    return this;
  }

  find(msg: string, accept: (v: T) => boolean = () => true): Entry<T> | null {
    let best: Entry<T> | null = null;
    const list = this.byLead.get(msg.slice(0, KEY_PREFIX));
    if (list)
      for (const e of list)
        if (msg.startsWith(e.lit) && accept(e.value) && test(e, msg)) {
          best = e;
          break;
        }
    // only the templates whose literal the message may hold, in their order
    const floating = this.floating;
    if (floating.length === 0) return best;
    const from = this.floatingFrom;
    const to = from + floating.length;
    const bits = lineLiterals.candidates(msg);
    for (let id = nextCandidate(bits, from, to); id >= 0; id = nextCandidate(bits, id + 1, to)) {
      const e = floating[id - from]!;
      // sorted by weight: a later template is no better than this one, candidate or not
      if (best !== null && e.weight <= best.weight) break;
      if (msg.includes(e.lit) && accept(e.value) && test(e, msg)) {
        best = e;
        break;
      }
    }
    return best;
  }

  /**
   * An entry whose leading literal, at least `min` characters of it, the message starts with; its pattern is not
   * tested (a paste that cut the template's tail, its URL or its last sentence, still starts with its words).
   */
  findLead(msg: string, min: number): Entry<T> | null {
    const list = this.byLead.get(msg.slice(0, KEY_PREFIX));
    if (list) for (const e of list) if (e.lit.length >= min && msg.startsWith(e.lit)) return e;
    return null;
  }
}

function test<T>(e: Entry<T>, msg: string): boolean {
  e.re ??= new RegExp(e.src);
  return e.re.test(msg);
}

/**
 * The text the placeholders of the entry took in the message: its groups, and what follows the match (the
 * patterns drop a trailing placeholder, and a multi-line template matches its first line only).
 */
function filled<T>(e: Entry<T>, msg: string): string {
  const m = e.re?.exec(msg);
  return m ? `${m.slice(1).join(' ')} ${msg.slice(m.index + m[0].length)}`.trim() : '';
}

export interface CatalogLine {
  phase: CatalogPhase;
  scope: CatalogScope;
  level: string;
  crash: boolean;
  /** `file.py:Class.function` of the log call in the engine's source. */
  source: string;
  /** A line of the server hosting the engine (Triton), not of the engine itself. */
  host: boolean;
}

interface RaiseInfo {
  exception: string;
  cls: FailureClass;
  /** A `key` entry, whose class was checked by hand. */
  checked: boolean;
}

interface Built {
  logs: Index<CatalogLine>;
  raises: Index<RaiseInfo>;
}

/**
 * Programs with a catalog but no engine module (the reader of engines without one keys on the program's name:
 * `ollama`, `lmdeploy`). Their lines are looked up by `catalogLine(program, line)`.
 */
export type CatalogProgram = 'ollama' | 'lmdeploy';
/** What a catalog is keyed by: an engine with a module, or a program without one. */
export type CatalogKey = EngineId | CatalogProgram;

/**
 * The catalogs each engine's lines are read against. Triton Inference Server is no engine of its own here: it
 * hosts TensorRT-LLM (the tensorrtllm backend) or vLLM (the vllm backend), whose lines decide the engine, so
 * Triton's catalog (core, server and both backends) is read with theirs.
 */
const HOSTS: ReadonlySet<CatalogData> = new Set([TRITON]);

const DATA: Partial<Record<CatalogKey, readonly CatalogData[]>> = {
  sglang: [SGLANG],
  vllm: [VLLM, TRITON],
  trtllm: [TRTLLM, TRITON],
  tgi: [TGI],
  llamacpp: [LLAMACPP],
  ollama: [OLLAMA],
  lmdeploy: [LMDEPLOY],
};
/**
 * Catalogs a program's log also holds lines of: Ollama's runner subprocess prints llama.cpp's own lines
 * (llm/server.go pipes the runner's stderr into the daemon's log; in 2026 the runner is llama-server itself).
 */
const RELAYS: Partial<Record<CatalogKey, readonly CatalogKey[]>> = { ollama: ['llamacpp'] };
const built = new Map<CatalogKey, Built | null>();

/** The programs that have a catalog and no engine module. */
export const CATALOG_PROGRAMS: readonly CatalogProgram[] = ['ollama', 'lmdeploy'];

/** The catalog key for a program name (`ollama`, `/usr/bin/ollama`, `lmdeploy`), or null. */
export function catalogProgram(name: string): CatalogProgram | null {
  const base = name
    .slice(name.replace(/\\/g, '/').lastIndexOf('/') + 1)
    .toLowerCase()
    .replace(/\.exe$/, '');
  return (CATALOG_PROGRAMS as readonly string[]).includes(base) ? (base as CatalogProgram) : null;
}

function catalog(engine: CatalogKey): Built | null {
  let b = built.get(engine);
  if (b !== undefined) return b;
  const sources = DATA[engine];
  b = null;
  if (sources) {
    const logs = new Index<CatalogLine>();
    const raises = new Index<RaiseInfo>();
    for (const data of sources) {
      const host = HOSTS.has(data);
      for (const [src, key, weight, phase, scope, level, crash, source] of data.logs)
        logs.add(src, key, weight, { phase, scope, level, crash: crash === 1, source, host });
      for (const [src, key, weight, exception, cls, checked] of data.raises)
        raises.add(src, key, weight, { exception, cls, checked: checked === 1 });
    }
    b = { logs: logs.seal(), raises: raises.seal() };
  }
  built.set(engine, b);
  return b;
}

/**
 * TGI's tracing records keep their spans and target before the message (`shard-manager: text_generation_launcher:
 * Starting shard rank=0`; the router adds the source file: `text_generation_router::server:
 * router/src/server.rs:1849: Connected`): the log call's text starts after them.
 */
const TRACING_HEAD =
  /^(?:(?:[\w-]+(?:\{[^}]*\})?:)+ )?text_generation_\w+(?:::\w+)*: (?:[\w./-]+\.rs:\d+: )?/;

/**
 * The text the engine's log call wrote. Triton's default log format quotes the message and escapes the quotes
 * in it (`I0205 18:34:18.707423 1 model_lifecycle.cc:473] "loading: m:1"`; qa/L0_logging/log_format_test.py).
 */
function callText(engine: CatalogKey, msg: string): string {
  let m = engine === 'tgi' ? msg.replace(TRACING_HEAD, '') : msg;
  if (m.length > 1 && m.startsWith('"') && m.endsWith('"')) m = m.slice(1, -1).replace(/\\"/g, '"');
  return m;
}

/** The engines that have a catalog, in the order a line of no known engine is tried against them. */
export const CATALOG_ENGINES: readonly EngineId[] = ['sglang', 'vllm', 'trtllm', 'tgi', 'llamacpp'];

/**
 * The engine's (or program's) log call that prints this message, or null. `msg` is the line after the common
 * prefix parse, or a whole line: the logger frame a catalog's program prints (Go's slog `msg="…"`, llama.cpp's
 * server_log JSON, LMDeploy's `- lmdeploy - INFO - file.py:N - `) is taken off first (catalog-message.ts). A
 * program whose log relays another's lines (Ollama: llama.cpp's) is looked up in that catalog next.
 */
export function catalogLine(engine: CatalogKey, msg: string): CatalogLine | null {
  const text = catalogMessage(engine, callText(engine, msg));
  const hit = catalog(engine)?.logs.find(text)?.value ?? null;
  if (hit !== null) return hit;
  for (const relay of RELAYS[engine] ?? []) {
    const r = catalogLine(relay, text);
    if (r !== null) return r;
  }
  return null;
}

/**
 * Literal text a template must hold for its line to say which engine printed it: short templates (`Done`,
 * `%s took %.2f s`) are any program's words.
 */
const OWNER_LITERAL = 20;
/**
 * A template's leading words that name its engine even when the rest of the paste's line differs (cut, reworded
 * tail): as long as a sentence, no other engine's source starts a message so.
 */
const OWNER_LEAD = 32;
/**
 * Python's report of an exception (`RuntimeError: <message>`): the message is what the engine's `raise` wrote (the
 * catalog's raises), or a log call's text that it raised as well.
 */
const EXCEPTION_HEAD = /^(?:\w+\.)*[A-Z]\w*(?:Error|Exception): (.+)$/;

/**
 * The one engine whose own log calls print this message, or whose own `raise` wrote it (a template of at least
 * OWNER_LITERAL literal characters found in its catalog and in no other engine's; or one whose first OWNER_LEAD
 * characters the message starts with), or null: a line stripped of its logger prefix (a user's paste, a wrapper's
 * re-log), an exception's last line quoted alone, still says its engine by its words. Lines two engines share
 * (SGLang's copies of vLLM's loader and tqdm bars, Triton's lines under both backends) say nothing. A raise counts
 * only by a sentence-long opening: the catalogs list each engine's own raise sites, not the ones it copied, and a
 * short opening before the placeholders is often copied wording (SGLang's models/registry.py, "Adapted from" vLLM's,
 * raises vLLM's `Model architectures {…} are not supported for now. …`, which only vLLM's catalog holds).
 */
export function catalogOwner(msg: string): EngineId | null {
  const exc = EXCEPTION_HEAD.exec(msg);
  const text = exc === null ? msg : exc[1]!;
  let owner: EngineId | null = null;
  for (const engine of CATALOG_ENGINES) {
    const b = catalog(engine);
    if (b === null) continue;
    const m = catalogMessage(engine, callText(engine, text));
    const e = b.logs.find(m) ?? b.logs.findLead(m, OWNER_LEAD) ?? b.raises.findLead(m, OWNER_LEAD);
    if (e == null) continue;
    if (owner !== null) return null;
    if (e.weight < OWNER_LITERAL) return null;
    owner = engine;
  }
  return owner;
}

/**
 * The class the engine's source gives the raise of this exception with this message, or null. The type may
 * be qualified (`torch.OutOfMemoryError`); the catalog names the class only.
 */
export function catalogRaiseClass(
  engine: CatalogKey,
  exceptionType: string,
  message: string,
): FailureClass | null {
  return catalogRaise(engine, exceptionType, message)?.cls ?? null;
}

/**
 * `exceptionType` `*`: any raise site whose message this is. C++ and Go errors reach the log without their type
 * (llama.cpp's `error loading model: <what()>`, Ollama's `error="…"`).
 */
function catalogRaise(
  engine: CatalogKey,
  exceptionType: string,
  message: string,
): (RaiseInfo & { filled: string }) | null {
  const b = catalog(engine);
  if (!b || !message) return null;
  const type = exceptionType.slice(exceptionType.lastIndexOf('.') + 1);
  const e = b.raises.find(message, (v) => type === '*' || v.exception === type);
  if (e) return { ...e.value, filled: filled(e, message) };
  for (const relay of RELAYS[engine] ?? []) {
    const r = catalogRaise(relay, exceptionType, message);
    if (r !== null) return r;
  }
  return null;
}

/**
 * The class of an exception an engine raised: the engine's own raise site decides when the catalog knows
 * the message, unless what the source filled into the message at run time names a cause by the rules of
 * failure-class.ts (a wrapped `CUDA out of memory`, a list of "not supported" reasons): the catalog's class
 * is a reading of the raise site, the filled-in text is what happened. `other` is the catalog's class for
 * messages that only point at a root cause printed earlier: the caller treats it as a consequence.
 */
export function classifyRaise(
  engine: CatalogKey | null,
  type: string,
  message: string,
  rules: (type: string, message: string) => FailureClass | null,
): FailureClass | null {
  const cat = engine ? catalogRaise(engine, type, message) : null;
  if (cat === null) return rules(type, message);
  // A wrapped error names the cause even where the raise site's class was checked by hand: SGLang's
  // `Capture cuda graph failed: {e}` (cuda_graph_runner.py, CudaGraphRunner.__init__) wraps an OOM as often
  // as a CUDA error.
  const wrapped = cat.filled ? classifyFailureText(cat.filled) : null;
  if (wrapped !== null) return wrapped;
  // torch/_dynamo/exc.py BackendCompilerFailed: `backend='inductor' raised:` then the compiler's own error on the
  // next line: a torch.compile failure wrapped by the raise site, not what the site's class guesses (a CUDA error
  // for a graph capture)
  if (cat.filled && /^backend='[\w.-]+' raised:/.test(cat.filled)) return 'python_exception';
  return cat.cls;
}
