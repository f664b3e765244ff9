/** `bench run`'s use case: measuring a running server, and the results recorded on the launch that served them. */
import { BenchError } from '../bench/errors.js';
import { type BenchPlan, type BenchRunResult, type RunHooks, runBench } from '../bench/run.js';
import { type ServerInfo, servedModel, serverInfo } from '../bench/server-info.js';
import { levelToBench } from '../core/campaign/bench/loadgen/to-result.js';
import type { Slo } from '../core/campaign/bench/loadgen/types.js';
import type { LaunchRecord } from '../core/campaign/records.js';
import { UsageError } from '../errors.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { LedgerError } from '../store/types.js';
import { fingerprinted, LOCAL, wallOf } from './bench-import.js';

export interface Measured {
  model: string;
  server: ServerInfo;
  result: BenchRunResult;
}

/**
 * Benchmarks the server at `base`: its model (the plan's, else the first it serves), what it says about itself
 * (engine, version, config), then the plan's levels. A server that cannot be asked is a UsageError naming it.
 */
export async function measureServer(
  base: string,
  plan: Omit<BenchPlan, 'model'> & { model?: string | null },
  hooks: RunHooks,
  explain: (e: BenchError) => string,
): Promise<Measured> {
  let model: string;
  try {
    model = plan.model ?? (await servedModel(base));
  } catch (e) {
    if (e instanceof BenchError) throw new UsageError(explain(e));
    throw e;
  }
  const server = await serverInfo(base);
  const result = await runBench(base, { ...plan, model }, hooks);
  return { model, server, result };
}

export interface Recorded {
  launch: LaunchRecord | null;
  benches: number[];
  why: string | null;
}

/** What `bench run` needs of its options here: the URL, `--host`/`--launch`, the plan's SLO. */
export interface BenchRunTarget {
  url: URL;
  flags: Record<string, unknown>;
  plan: { slo?: Slo | null };
  /** The share of failed requests past which a level meets no target (default 1 %). */
  maxFailedRate?: number;
}

/**
 * Records each level of a bench run in the ledger on the launch serving at the URL (or the one `--launch` names),
 * the record `bench import` makes, plus what only firedup's own generator knows.
 */
export async function recordBenchRun(
  ledger: LedgerStore,
  opts: BenchRunTarget,
  r: BenchRunResult,
  server: ServerInfo,
): Promise<Recorded> {
  const url = opts.url;
  const host =
    typeof opts.flags.host === 'string'
      ? opts.flags.host
      : LOCAL.has(url.hostname.toLowerCase())
        ? 'localhost'
        : url.hostname;
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const first = r.levels[0]!;
  const last = r.levels[r.levels.length - 1]!;
  const mid = wallOf((first.startedAt + last.endedAt) / 2);
  let launch: LaunchRecord | null;
  try {
    launch =
      typeof opts.flags.launch === 'string'
        ? await ledger.resolve(opts.flags.launch)
        : await ledger.servingAt(host, port, mid);
  } catch (e) {
    if (e instanceof LedgerError) throw new UsageError(`bench run: --launch: ${e.message}`);
    throw e;
  }
  const level = (l: BenchRunResult['levels'][number]) =>
    fingerprinted(
      levelToBench(l.metrics, {
        url: url.origin,
        host,
        port,
        model: r.model,
        endpoint: r.endpoint,
        finishedAtWall: wallOf(l.endedAt),
        startedAtEpoch: l.startedAt,
        slo: opts.plan.slo ? { ...opts.plan.slo } : null,
        server,
        maxFailedRate: opts.maxFailedRate,
      }),
    );
  // A run no launch takes is kept all the same, with why: `bench list` shows it, `bench attach` places it.
  const unattached = async (why: string): Promise<Recorded> => {
    const benches: number[] = [];
    for (const l of r.levels) benches.push((await ledger.keepUnattached(level(l), why)).record.id);
    return { launch: null, benches, why };
  };
  if (!launch) return unattached(`no launch serving on ${host}:${port} in the ledger`);
  // The same host and port is not enough: the server that answered must be that launch's, by the model it
  // serves and the engine it says it is. A day-old launch on the port is not the server measured now.
  const mismatch = typeof opts.flags.launch === 'string' ? null : notThisLaunch(launch, r.model, server);
  if (mismatch)
    return unattached(`the server on ${host}:${port} is not launch ${launch.id.slice(0, 8)}'s: ${mismatch}`);
  const benches: number[] = [];
  for (const l of r.levels) benches.push((await ledger.addBench(launch.id, level(l))).record.id);
  return { launch, benches, why: null };
}

/** Two names of one model: the same text, the same path up to a trailing slash, or the same last part. */
function sameModel(a: string, b: string): boolean {
  const norm = (x: string) => x.replace(/\/+$/, '');
  const base = (x: string) =>
    norm(x)
      .split('/')
      .pop()!
      .replace(/\.gguf$/i, '');
  return norm(a) === norm(b) || base(a) === base(b);
}

/** Why the server that answered is not `launch`'s (null when nothing it says contradicts it). */
export function notThisLaunch(launch: LaunchRecord, servedModel: string, server: ServerInfo): string | null {
  if (server.engine && launch.engine && server.engine !== launch.engine)
    return `it is ${server.engine}, the launch was ${launch.engine}`;
  const names = [launch.model, launch.report?.configSummary?.served_model_name].filter(
    (x): x is string => typeof x === 'string' && x !== '',
  );
  if (names.length > 0 && !names.some((n) => sameModel(n, servedModel)))
    return `it serves ${servedModel}, the launch ${names[0]}`;
  if (names.length === 0) return `the launch names no model to compare with ${servedModel}`;
  return null;
}
