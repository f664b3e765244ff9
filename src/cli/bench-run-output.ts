/** What `bench run` shows: a live progress line on a terminal (stderr), and the results table at the end. */

import type { BenchRunResult, Progress } from '../bench/run.js';
import type { LatencyDist, Level, LevelMetrics } from '../core/campaign/bench/loadgen/types.js';
import { fmtNum } from './format-ledger.js';
import type { Style } from './style.js';
import { type Row, renderTable } from './table.js';

export function levelLabel(l: Level): string {
  if (l.rate === null) return `c=${l.concurrency}`;
  return `${l.rate} req/s${l.concurrency !== null ? ` c≤${l.concurrency}` : ''}`;
}

/**
 * A redrawn stderr line: requests done, the token rate over the last tick, failures and the latest cause. The
 * rate is taken between ticks rather than since the start, so a stall shows at once.
 */
export function progressPrinter(stream: NodeJS.WriteStream): { update(p: Progress): void; clear(): void } {
  let last: { chunks: number; t: number; level: number; warm: boolean } | null = null;
  let rate = 0;
  return {
    update(p) {
      const t = p.elapsedS;
      if (last && last.level === p.levelIndex && last.warm === p.warmup && t > last.t)
        rate = (p.chunks - last.chunks) / (t - last.t);
      else rate = t > 0 ? p.chunks / t : 0;
      last = { chunks: p.chunks, t, level: p.levelIndex, warm: p.warmup };
      const parts = [
        `${p.warmup ? 'warmup ' : ''}${levelLabel(p.level)}`,
        `${p.done}${p.total !== null ? `/${p.total}` : ''} done`,
        `${p.inFlight} in flight`,
        `${Math.round(rate)} tok/s`,
        `${t.toFixed(1)}s`,
      ];
      if (p.failed) parts.push(`${p.failed} failed (${p.lastError ?? '?'})`);
      const line = parts.join(' · ');
      const width = stream.columns || 120;
      stream.write(`\r\x1b[K${line.length > width - 1 ? `${line.slice(0, width - 2)}…` : line}`);
    },
    clear() {
      stream.write('\r\x1b[K');
    },
  };
}

// No figure is 'n/a' (TPOT of one-token or unstreamed replies), never a 0.00 that reads as a measurement.
const distCells = (d: LatencyDist) =>
  [d.mean, d.median, d.p90, d.p99, d.max].map((x) => (x === null ? 'n/a' : fmtNum(x)));

export function formatResults(
  r: BenchRunResult,
  header: { promptsFrom: string; server: string | null; maxFailedRate?: number },
  st: Style,
): string {
  const out: string[] = [];
  const src = new Set(r.levels.map((l) => l.metrics.tokenSource));
  out.push(
    `${st.bold(r.url)} · ${r.model} · ${r.endpoint === 'chat' ? '/v1/chat/completions' : '/v1/completions'} · ${header.promptsFrom}${header.server ? ` · ${header.server}` : ''}`,
  );
  if (src.has('chunks') || src.has('mixed'))
    out.push(
      st.yellow(
        '  the server sent no token usage for some requests: output tokens counted as streamed chunks, input tokens unknown',
      ),
    );
  const slo = r.levels.some((l) => l.metrics.goodputReqS !== null);
  const rows: Row[] = r.levels.map(({ metrics: m }) => [
    { text: levelLabel(m.level), paint: st.bold },
    `${m.completed}`,
    { text: `${m.failed}`, paint: m.failed ? st.red : undefined },
    `${m.durationS.toFixed(2)}`,
    fmtNum(m.requestTputReqS),
    fmtNum(m.inputTokS),
    fmtNum(m.outputTokS),
    fmtNum(m.totalTokS),
    fmtNum(m.peakOutputTokS),
    ...(slo ? [fmtNum(m.goodputReqS)] : []),
  ]);
  out.push(
    ...renderTable(
      [
        'level',
        'ok',
        'failed',
        'seconds',
        'req/s',
        'in tok/s',
        'out tok/s',
        'total tok/s',
        'peak out tok/s',
        ...(slo ? ['goodput req/s'] : []),
      ],
      rows,
      { right: [false, true, true, true, true, true, true, true, true, true], st },
    ),
  );
  const single = r.levels.find((l) => l.metrics.level.concurrency === 1 && l.metrics.level.rate === null);
  if (single) out.push(`  single-stream output: ${fmtNum(single.metrics.outputTokS)} tok/s (concurrency 1)`);
  out.push('');
  const lat: Row[] = [];
  for (const { metrics: m } of r.levels) {
    const rowsOf: Array<[string, LatencyDist]> = [
      ['TTFT', m.ttft],
      ['TPOT', m.tpot],
      ['ITL', m.itl],
      ['E2E', m.e2e],
    ];
    for (const [i, [name, d]] of rowsOf.entries())
      lat.push([i === 0 ? { text: levelLabel(m.level), paint: st.bold } : '', name, ...distCells(d)]);
  }
  out.push(
    ...renderTable(['', 'ms', 'mean', 'median', 'p90', 'p99', 'max'], lat, {
      right: [false, false, true, true, true, true, true],
      st,
    }),
  );
  const failing = r.levels.filter((l) => l.metrics.failed);
  if (failing.length) {
    out.push('', st.red('  failed requests:'));
    for (const { metrics: m } of failing)
      for (const e of m.errors.slice(0, 5))
        out.push(`    ${levelLabel(m.level)}  ${e.count}× ${e.kind}: ${e.message}`);
    const limit = header.maxFailedRate ?? 0.01;
    for (const { metrics: m } of failing) {
      const rate = m.failed / (m.failed + m.completed);
      if (rate > limit)
        out.push(
          st.red(
            `    ${levelLabel(m.level)}  ${Math.round(rate * 1000) / 10} % of requests failed, over the ${Math.round(limit * 1000) / 10} % allowed (--max-failed): this level meets no target`,
          ),
        );
    }
  }
  return `${out.join('\n')}\n`;
}

/** The JSON of one level: every metric, with the plan's level. */
export function levelJson(m: LevelMetrics, startedAt: number, endedAt: number) {
  const all = m.completed + m.failed;
  return {
    ...m,
    failedRate: all ? Math.round((m.failed / all) * 10_000) / 10_000 : null,
    startedAt,
    endedAt,
  };
}
