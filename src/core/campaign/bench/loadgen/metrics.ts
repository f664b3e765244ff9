/**
 * A level's figures from its request records, with the definitions of vllm bench serve and
 * sglang.bench_serving (research/anchors.md §1.5):
 *   TTFT = first generated chunk − send;  E2E = end of stream − send;
 *   TPOT = (last token's chunk − first token's chunk) / (output tokens − 1), the server's decode pace: the wait
 *          for [DONE] or a usage chunk after the last token is not decoding. A request with one token, one chunk,
 *          or all its chunks in one read (a server that buffers its answer) has none: no pace was seen, and 0 ms
 *          would read as an infinitely fast server;
 *   ITL  = gaps between consecutive generated chunks, over all requests;
 *   throughputs = totals over the level's duration (first send to last end); only successes count.
 */
import { distribution } from './stats.js';
import type { FailureKind, Level, LevelMetrics, RequestRecord, Slo } from './types.js';

/** Output tokens of a successful request: the server's usage, else one per streamed chunk. */
export function outputTokensOf(r: RequestRecord): number {
  return r.completionTokens ?? r.chunkMs.length;
}

export function ttftOf(r: RequestRecord): number {
  return r.chunkMs[0]! - r.startMs;
}

export function tpotOf(r: RequestRecord): number | null {
  const n = outputTokensOf(r);
  const k = r.chunkMs.length;
  if (n < 2 || k < 2) return null;
  const span = r.chunkMs[k - 1]! - r.chunkMs[0]!;
  return span > 0 ? span / (n - 1) : null;
}

function meetsSlo(r: RequestRecord, slo: Slo): boolean {
  if (slo.ttftMs !== undefined && ttftOf(r) > slo.ttftMs) return false;
  if (slo.e2eMs !== undefined && r.endMs - r.startMs > slo.e2eMs) return false;
  if (slo.tpotMs !== undefined) {
    const t = tpotOf(r);
    if (t !== null && t > slo.tpotMs) return false;
  }
  return true;
}

function groupErrors(failed: RequestRecord[]): LevelMetrics['errors'] {
  const by = new Map<string, { kind: FailureKind; message: string; count: number }>();
  for (const r of failed) {
    const f = r.failure ?? { kind: 'dropped' as const, message: 'failed without a cause' };
    const key = `${f.kind}\0${f.message}`;
    const g = by.get(key);
    if (g) g.count++;
    else by.set(key, { kind: f.kind, message: f.message, count: 1 });
  }
  return [...by.values()].sort((a, b) => b.count - a.count);
}

/** Output tokens per one-second bucket from the level's start; the fullest bucket is the peak. */
function peakPerSecond(ok: RequestRecord[], startMs: number): number {
  const buckets = new Map<number, number>();
  for (const r of ok) {
    if (r.chunkMs.length === 0) continue;
    // With usage, a chunk may carry several tokens (speculative decoding, stream intervals): spread them evenly.
    const per = outputTokensOf(r) / r.chunkMs.length;
    for (const t of r.chunkMs) {
      const b = Math.floor((t - startMs) / 1000);
      buckets.set(b, (buckets.get(b) ?? 0) + per);
    }
  }
  let peak = 0;
  for (const v of buckets.values()) if (v > peak) peak = v;
  return peak;
}

export function levelMetrics(
  level: Level,
  records: RequestRecord[],
  startMs: number,
  endMs: number,
  slo: Slo | null,
): LevelMetrics {
  const ok = records.filter((r) => r.ok);
  const failed = records.filter((r) => !r.ok);
  const durationS = Math.max(endMs - startMs, 1e-9) / 1000;
  let out = 0;
  let input = 0;
  let withUsage = 0;
  let withPromptUsage = 0;
  const ttft: number[] = [];
  const tpot: number[] = [];
  const itl: number[] = [];
  const e2e: number[] = [];
  for (const r of ok) {
    out += outputTokensOf(r);
    if (r.completionTokens !== null) withUsage++;
    if (r.promptTokens !== null) {
      input += r.promptTokens;
      withPromptUsage++;
    }
    ttft.push(ttftOf(r));
    e2e.push(r.endMs - r.startMs);
    const t = tpotOf(r);
    if (t !== null) tpot.push(t);
    for (let i = 1; i < r.chunkMs.length; i++) itl.push(r.chunkMs[i]! - r.chunkMs[i - 1]!);
  }
  // Input tokens are known only from usage: a partial sum would understate the input rate, so none is given.
  const inputTokens = ok.length > 0 && withPromptUsage === ok.length ? input : null;
  const good = slo ? ok.filter((r) => meetsSlo(r, slo)).length : null;
  return {
    level,
    completed: ok.length,
    failed: failed.length,
    errors: groupErrors(failed),
    durationS,
    requestTputReqS: ok.length / durationS,
    inputTokens,
    outputTokens: out,
    inputTokS: inputTokens === null ? null : inputTokens / durationS,
    outputTokS: out / durationS,
    totalTokS: inputTokens === null ? null : (inputTokens + out) / durationS,
    peakOutputTokS: peakPerSecond(ok, startMs),
    goodputReqS: good === null ? null : good / durationS,
    tokenSource:
      ok.length === 0 ? 'none' : withUsage === ok.length ? 'usage' : withUsage === 0 ? 'chunks' : 'mixed',
    ttft: distribution(ttft),
    tpot: distribution(tpot),
    itl: distribution(itl),
    e2e: distribution(e2e),
  };
}
