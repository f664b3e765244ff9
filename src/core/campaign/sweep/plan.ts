/**
 * A sweep's plan: the base command, the grid of flags and the explicit variants expanded into points (their
 * Cartesian product), each with the exact command it runs. Pure: the sweep file's reader (src/app/sweep-file.ts)
 * builds the spec, the runner hashes each point's identity (hashing stays out of the core).
 */

import type { EngineId } from '../../base/types.js';
import { isSecretKey, REDACTED, redactText } from '../../config/redact.js';
import { redactArgv } from '../intended-env.js';

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

/** Points a sweep may have unless `--max-points` allows more: 10,000 launches is weeks of GPU time already. */
export const MAX_POINTS = 10_000;

/** A grid too large to run (or to print): the message names its size and what to do. */
export class SweepPlanError extends Error {
  readonly code = 'too_many_points';
}

/** A secret axis (`api_key = [...]`, `--hf-token`): its values run, and are shown and stored as `<redacted>`. */
export const isSecretAxis = (key: string): boolean => isSecretKey(key.replace(/^--?/, ''));

/** How many points the grid × variants make, without making them. */
export function countPoints(spec: Pick<SweepSpec, 'grid' | 'variants'>): number {
  let n = spec.variants.length || 1;
  for (const a of spec.grid) n *= a.values.length;
  return n;
}

/** Every point of the grid × variants, the first axis varying slowest, made one at a time. */
export function* iteratePoints(
  spec: Pick<SweepSpec, 'command' | 'grid' | 'variants'>,
): Generator<SweepPoint> {
  const total = countPoints(spec);
  const radix = [
    ...spec.grid.map((a) => a.values.length),
    ...(spec.variants.length ? [spec.variants.length] : []),
  ];
  for (let index = 0; index < total; index++) {
    // mixed-radix digits of the index, the last axis fastest
    const digits: number[] = new Array(radix.length);
    let rest = index;
    for (let d = radix.length - 1; d >= 0; d--) {
      digits[d] = rest % radix[d]!;
      rest = Math.floor(rest / radix[d]!);
    }
    const values: Record<string, GridValue> = {};
    const label: string[] = [];
    let argv = spec.command;
    spec.grid.forEach((axis, d) => {
      const v = axis.values[digits[d]!]!;
      argv = withFlag(argv, axis.flag, v);
      const secret = isSecretAxis(axis.key) || isSecretAxis(axis.flag);
      values[axis.key] = secret ? REDACTED : v;
      label.push(`${axis.key}=${secret ? REDACTED : show(v)}`);
    });
    if (spec.variants.length) {
      const v = spec.variants[digits[radix.length - 1]!]!;
      values.variant = v.name;
      argv = [...argv, ...v.args];
      label.push(v.name);
    }
    yield { index: index + 1, values, argv, label: label.join(' ') || 'base' };
  }
}

/** Every point, refused past `maxPoints` before any is made (a 6 × 10 grid is a million). */
export function expandPoints(
  spec: Pick<SweepSpec, 'command' | 'grid' | 'variants'>,
  maxPoints = MAX_POINTS,
): SweepPoint[] {
  const n = countPoints(spec);
  if (n > maxPoints) {
    const axes = [
      ...spec.grid.map((a) => String(a.values.length)),
      ...(spec.variants.length ? [String(spec.variants.length)] : []),
    ];
    throw new SweepPlanError(
      `the grid makes ${n.toLocaleString('en-US')} points (${axes.join(' × ')}), over the ${maxPoints.toLocaleString('en-US')} allowed: narrow it, or allow it with --max-points ${n}`,
    );
  }
  return [...iteratePoints(spec)];
}

/** The spec as it may be shown or stored: the command and the variants' arguments redacted, secret axes masked. */
export function publicSpec<T extends Pick<SweepSpec, 'command' | 'grid' | 'variants'>>(spec: T): T {
  return {
    ...spec,
    command: redactArgv(spec.command),
    grid: spec.grid.map((a) =>
      isSecretAxis(a.key) || isSecretAxis(a.flag) ? { ...a, values: a.values.map(() => REDACTED) } : a,
    ),
    variants: spec.variants.map((v) => ({ ...v, args: redactArgv(v.args).map(redactText) })),
  };
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
