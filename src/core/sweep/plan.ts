/**
 * A sweep's plan: the base command, the grid of flags and the explicit variants expanded into points (their
 * Cartesian product), each with the exact command it runs. Pure: the sweep file's reader (src/app/sweep-file.ts)
 * builds the spec, the runner hashes each point's identity (hashing stays out of the core).
 */
import type { EngineId } from '../types.js';

export type GridValue = string | number | boolean;

/** One flag of the grid and the values it takes: `ctx_size = [512, 1024]`. */
export interface GridAxis {
  /** As written in the file (`ctx_size`, `-c`, `--ctx-size`). */
  key: string;
  /** As passed to the server (`--ctx-size`). */
  flag: string;
  values: GridValue[];
}

/** An explicit set of extra arguments (`[[variant]]`): one more axis, its values being whole argument lists. */
export interface Variant {
  name: string;
  args: string[];
}

export interface BenchSpec {
  concurrency: number[];
  inputLen: number;
  outputLen: number;
  /** Requests per level; null: max(20, 5 × concurrency), as `bench run`. */
  requests: number | null;
  warmup: number;
  endpoint: 'completions' | 'chat';
  /** null: the first model of /v1/models. */
  model: string | null;
  /** `ttft_ms=500,tpot_ms=50`, for goodput. */
  slo: string | null;
  /** Per request, seconds. */
  requestTimeoutS: number;
  ignoreEos: boolean;
  seed: number;
}

export interface SweepSpec {
  name: string;
  /** The base command, as argv. */
  command: string[];
  grid: GridAxis[];
  variants: Variant[];
  bench: BenchSpec;
  /** Target expressions (`output_tok_s >= 1000`), checked when the file is read. */
  targets: string[];
  readyTimeoutS: number;
  benchTimeoutS: number;
  /** Seconds between SIGTERM and SIGKILL when a point's server is stopped. */
  stopGraceS: number;
  /** `per_point`: one log per point in `logs` (a directory); `append`: every point appended to `logs` (a file). */
  logMode: 'per_point' | 'append';
  logs: string;
  /** The server's address; null: from --host/--port of the command. */
  url: string | null;
  engine: EngineId | null;
  /** Repeat each point this many times per sweep run. */
  repeat: number;
}

export interface SweepPoint {
  /** 1-based, in plan order. */
  index: number;
  /** The grid's values (and the variant's name under `variant`). */
  values: Record<string, GridValue>;
  argv: string[];
  /** `parallel=2 ctx_size=1024`. */
  label: string;
}

/** `ctx_size` → `--ctx-size`; a key already written as a flag (`-c`, `--ctx-size`) is kept. */
export function flagName(key: string): string {
  return key.startsWith('-') ? key : `--${key.replace(/_/g, '-')}`;
}

/**
 * The command with `flag` set to `value`: any occurrence in the base command is replaced (with its value,
 * `--flag v` or `--flag=v`), so a grid value never fights a default written in the base. `true` passes the bare
 * flag, `false` leaves it out.
 */
export function withFlag(argv: string[], flag: string, value: GridValue): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith(`${flag}=`)) continue;
    if (a === flag) {
      // The base's own value goes with it (a following argument that is not itself a flag).
      const next = argv[i + 1];
      if (next !== undefined && !/^-[-A-Za-z]/.test(next)) i++;
      continue;
    }
    out.push(a);
  }
  if (value === true) out.push(flag);
  else if (value !== false) out.push(flag, String(value));
  return out;
}

const show = (v: GridValue): string =>
  typeof v === 'string' && /[\s=]/.test(v) ? JSON.stringify(v) : String(v);

/** Every point of the grid × variants, the first axis varying slowest. */
export function expandPoints(spec: Pick<SweepSpec, 'command' | 'grid' | 'variants'>): SweepPoint[] {
  type Partial = { values: Record<string, GridValue>; argv: string[]; label: string[] };
  let acc: Partial[] = [{ values: {}, argv: spec.command, label: [] }];
  for (const axis of spec.grid) {
    acc = acc.flatMap((p) =>
      axis.values.map((v) => ({
        values: { ...p.values, [axis.key]: v },
        argv: withFlag(p.argv, axis.flag, v),
        label: [...p.label, `${axis.key}=${show(v)}`],
      })),
    );
  }
  if (spec.variants.length)
    acc = acc.flatMap((p) =>
      spec.variants.map((v) => ({
        values: { ...p.values, variant: v.name },
        argv: [...p.argv, ...v.args],
        label: [...p.label, v.name],
      })),
    );
  return acc.map((p, i) => ({
    index: i + 1,
    values: p.values,
    argv: p.argv,
    label: p.label.join(' ') || 'base',
  }));
}

/** What makes two runs the same point: the resolved command and the bench plan (canonical JSON, to be hashed). */
export function pointIdentity(argv: string[], bench: BenchSpec): string {
  const b = bench as unknown as Record<string, unknown>;
  const sorted = Object.fromEntries(
    Object.keys(b)
      .sort()
      .map((k) => [k, b[k]]),
  );
  return JSON.stringify({ argv, bench: sorted });
}

/** Splits a command written as one string the way a POSIX shell would (quotes and backslashes; no expansion). */
export function splitCommand(s: string): string[] | { error: string } {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else cur += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < s.length && '"\\$`'.includes(s[i + 1]!)) cur += s[++i];
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else cur += c;
  }
  if (quote) return { error: `unclosed ${quote} quote` };
  if (has || cur) out.push(cur);
  return out;
}
