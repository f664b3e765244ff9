/**
 * The phase a traceback frame shows, from the engines' own sources (engine-source catalog, README §3/§5):
 * `lookupFrame(path, fn)` for a frame line `File "<path>", line N, in <fn>`.
 *
 * Python prints only the bare function name, so the catalog's `Class.method` is matched as (file, method).
 * When several rows match one frame the most specific wins: an exact function name over a glob, a file
 * without a glob over one with, the longer file suffix over the shorter; equal rows agree (the generator
 * warns otherwise). A row whose function is only `*` (a whole module or class, e.g. `NCCLLibrary.*`) is
 * weak: it names the phase only when no outer frame of the same traceback did, since such helpers are also
 * called later (NCCL calls while serving, `models/utils.py` helpers in a forward pass).
 *
 * A row with `callers` (see FrameRule) is a helper more than one step calls: `lookupFrame` is given the bare
 * function names of the traceback's outer frames (outermost first), and the nearest one the row lists names
 * the phase; otherwise the row's own phase holds.
 */
import { LMDEPLOY_FRAMES } from './lmdeploy.js';
import { SGLANG_FRAMES } from './sglang.js';
import { TGI_FRAMES } from './tgi.js';
import { TRTLLM_FRAMES } from './trtllm.js';
import type { FramePhase, FrameRule } from './types.js';
import { VLLM_FRAMES } from './vllm.js';
import { XINFERENCE_FRAMES } from './xinference.js';

export type { FramePhase, FrameRule } from './types.js';

/**
 * LMDeploy and Xinference have no engine module: their frames serve the reader of engines without one (a
 * program-keyed catalog; Xinference's table is hand-written, frames/xinference.ts).
 */
export type FrameEngine = 'sglang' | 'vllm' | 'trtllm' | 'tgi' | 'lmdeploy' | 'xinference';

/**
 * Engines whose table lists only the frames that tell a phase (the TensorRT-LLM and TGI catalogs list the
 * startup path's entry points, not every function read as SGLang's and vLLM's do): a function missing there
 * is read by the general rules, its module's path included (traceback.ts).
 */
export const PARTIAL_FRAME_TABLES: ReadonlySet<FrameEngine> = new Set<FrameEngine>([
  'trtllm',
  'tgi',
  'xinference',
]);

/** The Python package of each engine (the directory under site-packages or a source checkout). */
const PACKAGE: Readonly<Record<string, FrameEngine>> = {
  sglang: 'sglang',
  vllm: 'vllm',
  tensorrt_llm: 'trtllm',
  text_generation_server: 'tgi',
  lmdeploy: 'lmdeploy',
  xinference: 'xinference',
  // vLLM's Gaudi platform plugin (vllm-project/vllm-gaudi): its worker and model runner are vLLM's own steps for
  // HPUs (hpu_worker.py compile_or_warm_up_model, hpu_model_runner.py warmup_model), read with vLLM's table
  vllm_gaudi: 'vllm',
  // vLLM's Ascend platform plugin (vllm-project/vllm-ascend): NPUWorker/NPUModelRunner implement vLLM's worker steps
  // for NPUs (vllm_ascend/worker/worker.py, formerly worker_v1.py, compile_or_warm_up_model calls
  // self.model_runner.capture_model(); model_runner_v1.py NPUModelRunner.capture_model runs GPUModelRunner's)
  vllm_ascend: 'vllm',
};

/** What a frame says: a phase (weak when only a module-wide glob matched), a relay, or nothing known. */
export type FrameVerdict =
  | { kind: 'phase'; phase: FramePhase; weak: boolean }
  | { kind: 'relay' }
  | { kind: 'unknown' };

interface Compiled {
  file: RegExp;
  fn: RegExp | null;
  name: string;
  phase: FramePhase | null;
  callers: Readonly<Record<string, FramePhase>> | null;
  rank: number;
  weak: boolean;
}

const glob = (s: string): string => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');

function compile(rules: readonly FrameRule[]): { exact: Map<string, Compiled[]>; globs: Compiled[] } {
  const exact = new Map<string, Compiled[]>();
  const globs: Compiled[] = [];
  for (const [file, fn, phase, callers] of rules) {
    const fileGlob = file.includes('*');
    const fnGlob = fn.includes('*');
    const c: Compiled = {
      file: new RegExp(`(?:^|/)${glob(file)}$`),
      fn: fnGlob ? new RegExp(`^${glob(fn)}$`) : null,
      name: fn,
      phase,
      callers: callers ?? null,
      rank: (fnGlob ? (fn === '*' ? 0 : 1000) : 2000) + (fileGlob ? 0 : 500) + file.length,
      weak: fn === '*',
    };
    if (fnGlob) globs.push(c);
    else {
      const list = exact.get(fn) ?? [];
      list.push(c);
      exact.set(fn, list);
    }
  }
  return { exact, globs };
}

const RULES: Record<FrameEngine, readonly FrameRule[]> = {
  sglang: SGLANG_FRAMES,
  vllm: VLLM_FRAMES,
  lmdeploy: LMDEPLOY_FRAMES,
  trtllm: TRTLLM_FRAMES,
  tgi: TGI_FRAMES,
  xinference: XINFERENCE_FRAMES,
};
/** Compiled on first use: only a traceback asks, and compiling some 300 rules costs every start milliseconds. */
const TABLES: Partial<Record<FrameEngine, ReturnType<typeof compile>>> = {};

/** The catalog engine whose package holds this file (the segment after site-packages, or a source checkout). */
export function frameEngine(path: string): FrameEngine | null {
  const p = path.replace(/\\/g, '/');
  const pkg = /(?:site|dist)-packages\/([^/]+)\//g;
  let last: string | null = null;
  for (let m = pkg.exec(p); m !== null; m = pkg.exec(p)) last = m[1]!;
  // a setuptools egg install keeps the package one level down: site-packages/vllm-0.5.3+cpu-py3.10.egg/vllm/
  if (last !== null) last = /^(sglang|vllm|tensorrt_llm|lmdeploy)-[^/]*\.egg$/.exec(last)?.[1] ?? last;
  if (last !== null) return Object.hasOwn(PACKAGE, last) ? PACKAGE[last]! : null;
  const src = /(?:^|\/)(sglang|vllm|vllm_gaudi|vllm_ascend|tensorrt_llm|text_generation_server|lmdeploy)\//g;
  let eng: FrameEngine | null = null;
  for (let m = src.exec(p); m !== null; m = src.exec(p)) eng = PACKAGE[m[1]!]!;
  return eng;
}

/** The phase a helper with `callers` runs in: that of its nearest listed caller among `outer`, if any. */
function callerPhase(
  callers: Readonly<Record<string, FramePhase>>,
  outer: readonly string[],
): FramePhase | null {
  for (let i = outer.length - 1; i >= 0; i--) {
    const p = Object.hasOwn(callers, outer[i]!) ? callers[outer[i]!] : undefined;
    if (p !== undefined) return p;
  }
  return null;
}

/**
 * The catalog's reading of one frame of `engine`'s code; `outer` holds the bare function names of the frames
 * printed above it in the same traceback (its callers, outermost first).
 */
export function lookupFrame(
  engine: FrameEngine,
  path: string,
  fn: string,
  outer: readonly string[] = [],
): FrameVerdict {
  const p = path.replace(/\\/g, '/');
  const t = (TABLES[engine] ??= compile(RULES[engine]));
  let best: Compiled | null = null;
  for (const c of t.exact.get(fn) ?? []) if (c.file.test(p) && (!best || c.rank > best.rank)) best = c;
  for (const c of t.globs) if ((!best || c.rank > best.rank) && c.fn!.test(fn) && c.file.test(p)) best = c;
  if (!best) return { kind: 'unknown' };
  const phase = (best.callers && callerPhase(best.callers, outer)) ?? best.phase;
  if (phase === null) return { kind: 'relay' };
  return { kind: 'phase', phase, weak: best.weak };
}

/**
 * The phase of a call read on a frame's code line (`self.model_runner.capture_model()`) when the traceback is cut
 * before the callee's own frame: the catalog rows of that bare function name (exact names, not globs) must all
 * tell the same phase, since the callee's file is not printed.
 */
export function lookupCall(engine: FrameEngine, fn: string): FramePhase | null {
  const t = (TABLES[engine] ??= compile(RULES[engine]));
  const rows = t.exact.get(fn) ?? [];
  let phase: FramePhase | null = null;
  for (const c of rows) {
    if (c.phase === null || c.callers !== null || (phase !== null && c.phase !== phase)) return null;
    phase = c.phase;
  }
  return phase;
}
