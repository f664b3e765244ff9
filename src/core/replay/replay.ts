/**
 * Plans the replay of a recorded log at its original timing, and says when its HTTP server would have
 * listened and turned ready, so `firedup replay` can rebuild a launch for a live watcher to be tested on.
 * Pure: text in, schedule out.
 */

import type { EngineId } from '../base/types.js';
import { decodeLine } from '../lines/clean.js';
import { type PrefixContext, parseLine } from '../lines/prefix.js';
import { LogAnalyzer } from '../reading/analyzer.js';
import { parseBar } from '../reading/tqdm.js';

export interface ReplayStep {
  /** Seconds after the start of the replay at which to write the line. */
  at: number;
  /** The physical line with its `\n` (none on a last line that has none), `\r` refreshes intact. */
  line: string;
}

export interface ReplayOptions {
  /** 20 plays the log 20 times faster than it was written. */
  speed: number;
  /** Longest pause kept, in seconds of log time (default 30): the hours between two launches become this. */
  maxGap?: number;
}

/** Stamps that go back further than this are a new clock (a relaunch's relative stamps, midnight), not jitter. */
const CLOCK_RESET = 10;
/** Distinct progress bars tracked at once (ranks print their bars interleaved). */
const MAX_BARS = 16;

/**
 * Maps log time to replay seconds. Anchored at its first reading, so rounding in one step does not add up
 * over a long log; gaps over maxGap are cut, and the cut carried.
 */
class Clock {
  /** The latest log time seen. */
  now: number;
  private skipped = 0;

  constructor(
    private readonly originAt: number,
    private readonly origin: number,
  ) {
    this.now = origin;
  }

  /** Replay time of log time t; null when the clock went back far enough to start a new one. */
  map(t: number, speed: number, maxGap: number): number | null {
    const d = t - this.now;
    if (d < -CLOCK_RESET) return null;
    // Processes writing one file interleave slightly out of order: a small step back is "right after".
    if (d > maxGap) this.skipped += d - maxGap;
    if (d > 0) this.now = t;
    return this.originAt + (this.now - this.origin - this.skipped) / speed;
  }
}

/** One progress bar: its elapsed field, read against the log time at which it was first seen. */
interface Bar {
  base: number;
  first: number;
  last: number;
}

/**
 * A bar is told apart by who prints it (vLLM workers print one each) and its description with the numbers
 * blanked, since some carry changing ones (`Capturing batches (bs=56 avail_mem=22.05 GB)`).
 */
function barKey(tags: string | null, desc: string, total: number): string {
  return `${tags ?? ''}|${desc.replace(/\d+(?:\.\d+)?/g, '#')}|${total}`;
}

export function planReplay(text: string, opts: ReplayOptions): ReplayStep[] {
  const { speed } = opts;
  const maxGap = opts.maxGap ?? 30;
  if (!(speed > 0) || !Number.isFinite(speed))
    throw new RangeError(`speed must be a positive number (got ${speed})`);
  if (!(maxGap >= 0)) throw new RangeError(`maxGap must be 0 or more (got ${maxGap})`);
  const ctx: PrefixContext = { year: 2026 };
  const steps: ReplayStep[] = [];
  const bars = new Map<string, Bar>();
  let at = 0;
  let clock: Clock | null = null;
  /** The clock runs on a printed timestamp, not only on bars' estimates (whose origin is arbitrary). */
  let real = false;

  // A bar's states carry no stamp, but its elapsed field dates them from its first state, so the pause
  // after a bar is measured from the bar's end, not from the last stamped line before it.
  const advance = (t: number, stamped: boolean): void => {
    const mapped = clock && (real || !stamped) ? clock.map(t, speed, maxGap) : null;
    if (mapped !== null) at = Math.max(at, mapped);
    else {
      clock = new Clock(at, t);
      real ||= stamped;
    }
  };
  const bar = (key: string, elapsed: number): void => {
    let b = bars.get(key);
    if (!b || elapsed < b.last) {
      // A bar's first state (or a restart) is written right after the line before it.
      bars.delete(key);
      if (bars.size >= MAX_BARS) bars.delete(bars.keys().next().value!);
      b = { base: clock?.now ?? 0, first: elapsed, last: elapsed };
      bars.set(key, b);
    }
    b.last = elapsed;
    advance(b.base + elapsed - b.first, false);
  };

  for (let start = 0; start < text.length; ) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl + 1;
    const line = text.slice(start, end);
    start = end;
    // Each `\r` state was written at its own time; the line is complete when its last state is.
    for (const seg of line.replace(/\r?\n$/, '').split('\r')) {
      if (seg.trim() === '') continue;
      const l = parseLine(decodeLine(Buffer.from(seg), 0, Buffer.byteLength(seg)), steps.length + 1, 0, ctx);
      const t = l.ts ?? l.rel;
      if (t !== null) advance(t, true);
      else {
        const b = parseBar(l.msg);
        if (b && b.elapsed !== null) bar(barKey(l.tags, b.desc, b.total), b.elapsed);
      }
    }
    steps.push({ at, line });
  }
  return steps;
}

/** A line of the log: 1-based number (as in the reports) and the byte offset (UTF-8) of its start. */
export interface ReplayMark {
  line: number;
  offset: number;
}

export interface ReplayLaunch {
  engine: EngineId | null;
  version: string | null;
  startLine: number;
  endLine: number;
  /** After this line the HTTP server accepts connections (before it, they are refused). */
  listen: ReplayMark | null;
  /** After this line the server is ready (`/health` 200). */
  ready: ReplayMark | null;
  /**
   * The server is gone: before its first shutdown line (it stops listening as it starts shutting down, so a
   * watcher's probe and the log agree), or after the last line of a crash or of a launch replaced by the
   * next one; null: still up at the end.
   */
  down: ReplayMark | null;
  /** True when `down` takes effect before its line is written (a shutdown), false after it. */
  downBefore: boolean;
  model: string | null;
  config: Record<string, unknown>;
}

/**
 * llama-server opens its HTTP port before loading the model and answers 503 "Loading model" until it is
 * loaded; the analyzer files this line under `args`, so it is looked up here.
 */
const LLAMACPP_LISTEN = /^(?:main|llama_server|srv +\w+): HTTP server is listening/;

export function replayPhases(text: string): ReplayLaunch[] {
  const buf = Buffer.from(text);
  const analyzer = new LogAnalyzer();
  analyzer.push(buf);
  const report = analyzer.end();
  const starts = new LineStarts(buf);
  const mark = (line: number | null | undefined): ReplayMark | null =>
    line == null ? null : { line, offset: starts.offsetOf(line) };
  return report.launches.map((l, i) => {
    const engine = l.engine ?? report.engine;
    const readyLine = l.ready?.line ?? l.phases.find((p) => p.phase === 'ready')?.line ?? null;
    let listenLine: number | null = null;
    // SGLang: uvicorn starts (the first warm-up line) before the warm-up request that makes it ready.
    if (engine === 'sglang') listenLine = l.phases.find((p) => p.phase === 'warmup')?.line ?? null;
    if (engine === 'llamacpp') listenLine = findLine(text, l.startLine, readyLine ?? l.endLine);
    // vLLM, TensorRT-LLM and TGI take connections only once they are ready.
    if (listenLine === null || (readyLine !== null && listenLine > readyLine)) listenLine = readyLine;
    const last = i === report.launches.length - 1;
    const gone = !last || l.outcome === 'crashed' || l.outcome === 'shutdown';
    return {
      engine,
      version: l.version,
      startLine: l.startLine,
      endLine: l.endLine,
      listen: mark(listenLine),
      ready: mark(readyLine),
      down: gone && listenLine !== null ? mark(l.shutdown?.line ?? l.endLine) : null,
      downBefore: l.shutdown !== null,
      model: l.model,
      config: l.config,
    };
  });
}

/** The first line in [from, to] whose message is llama-server's "HTTP server is listening". */
function findLine(text: string, from: number, to: number): number | null {
  const ctx: PrefixContext = { year: 2026 };
  let pos = 0;
  for (let no = 1; no <= to && pos < text.length; no++) {
    const nl = text.indexOf('\n', pos);
    const end = nl < 0 ? text.length : nl;
    if (no >= from) {
      const s = text.slice(pos, end);
      if (s.includes('HTTP server is listening') && LLAMACPP_LISTEN.test(parseLine(s, no, 0, ctx).msg))
        return no;
    }
    pos = end + 1;
  }
  return null;
}

/** Byte offsets of line starts, found by one forward scan (marks are asked for in increasing order). */
class LineStarts {
  private no = 1;
  private pos = 0;

  constructor(private readonly buf: Buffer) {}

  offsetOf(line: number): number {
    if (line < this.no) {
      this.no = 1;
      this.pos = 0;
    }
    while (this.no < line) {
      const nl = this.buf.indexOf(10, this.pos);
      if (nl < 0) break;
      this.pos = nl + 1;
      this.no++;
    }
    return this.pos;
  }
}
