/**
 * `runBench(url, plan)`: the load generator as a use case, for `firedup bench run` and for sweeps. It sends the
 * plan's requests level by level (closed loop at a fixed concurrency, or open loop at a constant or Poisson
 * rate), discards warmup requests, and returns each level's metrics. Nothing here prints or records: callers
 * get progress through a callback and the result as a value.
 */
import { levelMetrics, outputTokensOf } from '../core/campaign/bench/loadgen/metrics.js';
import { type Prompt, rng } from '../core/campaign/bench/loadgen/prompts.js';
import type { Level, LevelMetrics, RequestRecord, Slo } from '../core/campaign/bench/loadgen/types.js';
import { makeAgent, type StreamTarget, streamRequest } from './stream-request.js';

export type Endpoint = 'completions' | 'chat';

export interface BenchPlan {
  endpoint: Endpoint;
  model: string;
  /** Taken in turn (round robin) by the requests of every level, warmup included. */
  prompts: Prompt[];
  levels: Level[];
  arrival: 'constant' | 'poisson';
  /** Per level: a number of requests, or a duration in seconds (new requests stop at its end). */
  requests: number | null;
  /** A count per level (overrides `requests`), e.g. more requests for higher concurrencies. */
  requestsPerLevel?: number[];
  durationS: number | null;
  warmup: number;
  timeoutS: number;
  /** Ask for exactly max_tokens (`ignore_eos`, understood by SGLang, vLLM, TRT-LLM and llama-server). */
  ignoreEos: boolean;
  slo: Slo | null;
  seed: number;
}

export interface LevelRun {
  metrics: LevelMetrics;
  /** Epoch seconds of the level's first send and last answer. */
  startedAt: number;
  endedAt: number;
  /** The measured requests, in the order they were sent (only with keepRecords). */
  records?: RequestRecord[];
}

export interface BenchRunResult {
  url: string;
  endpoint: Endpoint;
  model: string;
  levels: LevelRun[];
  /** The run was interrupted (signal): the last level holds what finished before. */
  interrupted: boolean;
}

export interface Progress {
  level: Level;
  levelIndex: number;
  warmup: boolean;
  done: number;
  failed: number;
  inFlight: number;
  /** Generated chunks received so far in this level (the live tok/s is its rate). */
  chunks: number;
  /** Requests planned for the level, or null in duration mode. */
  total: number | null;
  elapsedS: number;
  /** The most recent failure's cause. */
  lastError: string | null;
}

export interface RunHooks {
  onProgress?: (p: Progress) => void;
  /** How often onProgress is called while a level runs (ms, default 250). */
  progressMs?: number;
  signal?: AbortSignal;
  keepRecords?: boolean;
}

export function endpointPath(e: Endpoint): string {
  return e === 'chat' ? '/v1/chat/completions' : '/v1/completions';
}

function requestBody(plan: BenchPlan, p: Prompt): string {
  const common = {
    model: plan.model,
    max_tokens: p.maxTokens,
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true },
    ...(plan.ignoreEos ? { ignore_eos: true } : {}),
  };
  return JSON.stringify(
    plan.endpoint === 'chat'
      ? { ...common, messages: [{ role: 'user', content: p.text }] }
      : { ...common, prompt: p.text },
  );
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

export async function runBench(url: string, plan: BenchPlan, hooks: RunHooks = {}): Promise<BenchRunResult> {
  const base = new URL(url);
  const target: StreamTarget = {
    url: new URL(endpointPath(plan.endpoint), base),
    agent: makeAgent(base),
    timeoutMs: plan.timeoutS * 1000,
  };
  const bodies = plan.prompts.map((p) => ({ text: requestBody(plan, p), maxTokens: p.maxTokens }));
  let next = 0;
  const body = () => bodies[next++ % bodies.length]!;
  const levels: LevelRun[] = [];
  try {
    for (let li = 0; li < plan.levels.length && !hooks.signal?.aborted; li++) {
      const level = plan.levels[li]!;
      if (plan.warmup > 0) {
        await runLevel(target, plan, level, li, body, { ...hooks, keepRecords: false }, plan.warmup);
      }
      if (hooks.signal?.aborted) break;
      levels.push(await runLevel(target, plan, level, li, body, hooks, null));
    }
  } finally {
    target.agent.destroy();
  }
  return {
    url,
    endpoint: plan.endpoint,
    model: plan.model,
    levels,
    interrupted: Boolean(hooks.signal?.aborted),
  };
}

interface Body {
  text: string;
  maxTokens: number;
}

/** When a level's requests are cut (see runLevel), or nothing: a level of a number of requests has --timeout. */
export function levelCut(
  plan: Pick<BenchPlan, 'durationS' | 'timeoutS'>,
  warmup: boolean,
  startMs: number,
): { cutAtMs: number; cutWhy: string } | Record<string, never> {
  const d = plan.durationS;
  if (d === null) return {};
  const grace = Math.min(plan.timeoutS, d);
  const cutAtMs = startMs + (warmup ? d : d + grace) * 1000;
  const cutWhy = warmup
    ? `still unanswered ${fmtS(d)} into the warmup (--duration ${fmtS(d)}): cut`
    : `still unanswered ${fmtS(grace)} after the level's ${fmtS(d)} (--duration) ended: cut`;
  return { cutAtMs, cutWhy };
}

const fmtS = (s: number) => `${Number(s.toFixed(3))} s`;

async function runLevel(
  target: StreamTarget,
  plan: BenchPlan,
  level: Level,
  levelIndex: number,
  body: () => Body,
  hooks: RunHooks,
  warmupCount: number | null,
): Promise<LevelRun> {
  const warmup = warmupCount !== null;
  // Neither a count nor a duration would never end: 20 requests then.
  const count = warmup
    ? warmupCount
    : (plan.requestsPerLevel?.[levelIndex] ?? plan.requests ?? (plan.durationS === null ? 20 : null));
  const startMs = performance.now();
  const startEpoch = performance.timeOrigin + startMs;
  const deadline =
    !warmup && plan.durationS !== null ? startMs + plan.durationS * 1000 : Number.POSITIVE_INFINITY;
  // A timed level stops sending at its deadline, and what is still unanswered then gets as long again (at
  // most --timeout) before it is cut and counted failed: a server that never answers ends the level at twice
  // its duration, not at --timeout (10 min) per request. Warmup, with no deadline of its own, gets the duration.
  const cut = levelCut(plan, warmup, startMs);
  const records: RequestRecord[] = [];
  const inFlight = new Set<Promise<RequestRecord>>();
  let issued = 0;
  let failed = 0;
  let finishedChunks = 0;
  let lastError: string | null = null;
  const more = () =>
    !hooks.signal?.aborted && (count === null || issued < count) && performance.now() < deadline;

  const send = (): Promise<RequestRecord> => {
    const slot = issued++;
    const b = body();
    const p = streamRequest(target, b.text, hooks.signal, { maxTokens: b.maxTokens, ...cut }).then((r) => {
      inFlight.delete(p);
      records[slot] = r;
      finishedChunks += r.ok ? outputTokensOf(r) : r.chunkMs.length;
      if (!r.ok) {
        failed++;
        lastError = r.failure?.message ?? null;
      }
      return r;
    });
    inFlight.add(p);
    return p;
  };

  const report = () =>
    hooks.onProgress?.({
      level,
      levelIndex,
      warmup,
      done: records.filter(Boolean).length,
      failed,
      inFlight: inFlight.size,
      chunks: finishedChunks,
      total: count,
      elapsedS: (performance.now() - startMs) / 1000,
      lastError,
    });
  const ticker = hooks.onProgress ? setInterval(report, hooks.progressMs ?? 250) : null;
  try {
    if (level.rate === null) {
      // Closed loop: `concurrency` workers, each sending its next request when its last one is answered.
      const workers = Math.max(1, Math.min(level.concurrency ?? 1, count ?? Number.POSITIVE_INFINITY));
      await Promise.all(
        Array.from({ length: workers }, async () => {
          while (more()) await send();
        }),
      );
    } else {
      // Open loop: arrivals on a schedule (Poisson: exponential gaps), capped by `concurrency` when given.
      const rand = rng(plan.seed + levelIndex);
      let at = startMs;
      while (more()) {
        const gap = plan.arrival === 'poisson' ? -Math.log(1 - rand()) / level.rate : 1 / level.rate;
        await sleep(at - performance.now(), hooks.signal);
        at += gap * 1000;
        while (level.concurrency !== null && inFlight.size >= level.concurrency && !hooks.signal?.aborted)
          await Promise.race(inFlight);
        if (!more()) break;
        void send();
      }
      await Promise.all([...inFlight]);
    }
  } finally {
    if (ticker) clearInterval(ticker);
  }
  report();
  const done = records.filter(Boolean);
  const endMs = done.reduce((m, r) => Math.max(m, r.endMs), startMs);
  const metrics = levelMetrics(level, done, startMs, endMs, plan.slo);
  return {
    metrics,
    startedAt: startEpoch / 1000,
    endedAt: (performance.timeOrigin + endMs) / 1000,
    ...(hooks.keepRecords ? { records: done } : {}),
  };
}
