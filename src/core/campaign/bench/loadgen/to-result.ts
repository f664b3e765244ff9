/**
 * A level of `firedup bench run` as the ledger's bench record — the same shape `bench import` writes for
 * sglang.bench_serving and vllm bench serve, so `show`, targets, `runs` and the dashboard read it unchanged.
 * The fingerprint is computed by the caller from `runText` (hashing stays out of the pure core).
 */
import type { ParsedBench } from '../types.js';
import type { LevelMetrics } from './types.js';

export interface RunContext {
  url: string;
  host: string;
  port: number | null;
  model: string;
  endpoint: string;
  /** Epoch seconds, already on the ledger's wall clock (see bench-import's wallOf). */
  finishedAtWall: number;
  startedAtEpoch: number;
  slo: Record<string, number> | null;
  server: { engine: string | null; version: string | null; config: Record<string, unknown> | null };
  /** The share of failed requests past which the run meets no target (`bench run --max-failed`, default 1 %). */
  maxFailedRate?: number;
}

/** A run with more than 1 % of its requests failed measured a server in trouble, not the configuration. */
export const DEFAULT_MAX_FAILED_RATE = 0.01;

const round = (v: number | null, d = 2): number | null =>
  v === null ? null : Math.round(v * 10 ** d) / 10 ** d;

function dist(d: LevelMetrics['ttft']) {
  return {
    mean: round(d.mean),
    median: round(d.median),
    p90: round(d.p90),
    p99: round(d.p99),
    max: round(d.max),
  };
}

export function levelToBench(m: LevelMetrics, ctx: RunContext): ParsedBench {
  const label =
    m.level.rate !== null
      ? `rate=${m.level.rate}${m.level.concurrency !== null ? ` c≤${m.level.concurrency}` : ''}`
      : `c=${m.level.concurrency}`;
  const result: Omit<ParsedBench, 'runText'> = {
    tool: 'firedup',
    backend: `openai-${ctx.endpoint}`,
    model: ctx.model,
    host: ctx.host,
    port: ctx.port,
    finishedAt: ctx.finishedAtWall,
    durationS: round(m.durationS, 3),
    completed: m.completed,
    maxConcurrency: m.level.concurrency,
    requestRate: m.level.rate,
    requestTputReqS: round(m.requestTputReqS, 3),
    outputTokS: round(m.outputTokS),
    totalTokS: round(m.totalTokS),
    inputTokS: round(m.inputTokS),
    ttft: dist(m.ttft),
    tpot: dist(m.tpot),
    itl: dist(m.itl),
    e2e: dist(m.e2e),
    source: `bench run ${ctx.url} ${label}`,
    failed: m.failed,
    errors: m.errors,
    maxFailedRate: ctx.maxFailedRate ?? DEFAULT_MAX_FAILED_RATE,
    peakOutputTokS: round(m.peakOutputTokS),
    goodputReqS: round(m.goodputReqS, 3),
    slo: ctx.slo,
    tokenSource: m.tokenSource,
    serverConfig: ctx.server.config,
    serverEngine: ctx.server.engine,
    serverVersion: ctx.server.version,
  };
  // The start instant makes each run distinct: the same figures measured twice are two runs, not one.
  return { ...result, runText: JSON.stringify({ ...result, startedAt: ctx.startedAtEpoch }) };
}
