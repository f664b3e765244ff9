/**
 * The JSON API over the ledger and the watched targets. Each handler takes the parsed query and returns
 * the body; a bad parameter or an unknown launch throws HttpError, which the server sends as
 * `{ "error": "one line" }`. Every record passes through scrub() on its way out.
 */

import { sweepReport } from '../app/sweep-report.js';
import { LAUNCH_STATES } from '../core/launch-state.js';
import type { BenchRecord, LaunchRecord, TargetRecord } from '../core/records.js';
import { evaluateTargets } from '../core/targets.js';
import type { LedgerStore, SweepSummary } from '../store/ledger-store.js';
import { listItemOf } from '../store/record.js';
import { type LaunchFilter, type LaunchListItem, LedgerError } from '../store/types.js';
import type {
  ApiLaunch,
  BenchSummary,
  CompareResponse,
  LaunchDetailResponse,
  LaunchesResponse,
  LaunchSummary,
  LiveResponse,
  LiveTarget,
  SeriesColumns,
  TargetResult,
} from './api-types.js';
import { compareConfigs } from './compare.js';
import { scrub, scrubArgv, scrubRecord } from './scrub.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** `?outcome=` takes a launch's state, as `runs --outcome` does: the log's outcome or the live verdict kept. */
const OUTCOMES: readonly string[] = LAUNCH_STATES;
const DEFAULT_LIMIT = 1000;
const MAX_LIMIT = 100_000;

function latestBench(benches: readonly BenchRecord[]): BenchSummary | null {
  const b = benches.reduce<BenchRecord | null>(
    (best, x) =>
      best === null || (x.finishedAt ?? x.importedAt) >= (best.finishedAt ?? best.importedAt) ? x : best,
    null,
  );
  if (!b) return null;
  return {
    outputTokS: b.outputTokS,
    totalTokS: b.totalTokS,
    ttftMedianMs: b.ttft.median,
    ttftP99Ms: b.ttft.p99,
    tpotMedianMs: b.tpot.median,
    itlMedianMs: b.itl.median,
  };
}

/**
 * The record without its throughput series, and the series as two columns: a long series (100,000 points)
 * is two flat arrays of numbers, cheap to send, parse and plot, instead of one small array per point. Only
 * numbers pass (anything else is null), so the series needs no scrubbing.
 */
function splitSeries(r: LaunchRecord): { launch: ApiLaunch; series: SeriesColumns | null } {
  const thr = r.report?.throughput;
  if (!thr) return { launch: r as ApiLaunch, series: null };
  const { series: points, ...rest } = thr;
  const n = Array.isArray(points) ? points.length : 0;
  const ts = new Array<number | null>(n);
  const tokS = new Array<number | null>(n);
  for (let i = 0; i < n; i++) {
    const p = points[i];
    const t = Array.isArray(p) ? p[0] : null;
    const v = Array.isArray(p) ? p[1] : null;
    ts[i] = typeof t === 'number' ? t : null;
    tokS[i] = typeof v === 'number' ? v : null;
  }
  return { launch: { ...r, report: { ...r.report, throughput: rest } }, series: { ts, tokS } };
}

function ledgerHttpError(e: unknown): never {
  if (e instanceof LedgerError) {
    if (e.code === 'not_found') throw new HttpError(404, e.message);
    if (e.code === 'ambiguous' || e.code === 'bad_filter') throw new HttpError(400, e.message);
    throw new HttpError(503, e.message);
  }
  throw e;
}

export class Api {
  constructor(
    private readonly ledger: LedgerStore,
    private readonly live: () => LiveTarget[],
  ) {}

  private targetsFor(
    all: readonly TargetRecord[],
    launch: LaunchListItem | LaunchRecord,
    benches: BenchRecord[],
  ): TargetResult[] {
    return evaluateTargets(all, launch, benches).map((r) => ({
      expr: r.target.expr,
      actual: r.actual,
      pass: r.pass,
      from: r.from,
    }));
  }

  /** A launch just recorded, as the table row shows it (the `launch` event). */
  async summary(r: LaunchRecord): Promise<LaunchSummary> {
    return this.rowOf(listItemOf(r), await this.ledger.targets(), await this.ledger.benches(r.id));
  }

  /** `targets`: every target in the ledger; `benches`: the launch's runs. */
  private rowOf(
    item: LaunchListItem,
    targets: readonly TargetRecord[],
    benches: BenchRecord[],
  ): LaunchSummary {
    const { configSummary, ...rest } = item;
    return scrubRecord({
      ...rest,
      keyFlags: configSummary,
      bench: latestBench(benches),
      targets: this.targetsFor(targets, item, benches),
    });
  }

  /** The sweeps kept, newest first (`firedup sweep`). */
  async sweeps(): Promise<{ sweeps: SweepSummary[] }> {
    return { sweeps: await this.guard(() => this.ledger.sweeps()) };
  }

  /**
   * One sweep as `firedup sweep report` ranks it; each point with its levels (output tok/s and median TPOT
   * per concurrency: the dashboard's throughput curve and Pareto view). Commands pass through scrubArgv.
   */
  async sweep(name: string): Promise<unknown> {
    const r = await this.guard(() => sweepReport(this.ledger, name));
    if (!r) throw new HttpError(404, `no sweep named ${name}`);
    return scrub({ ...r, runs: r.runs.map((x) => ({ ...x, argv: scrubArgv(x.argv) })) });
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof LedgerError) throw new HttpError(503, e.message);
      throw e;
    }
  }

  async launches(q: URLSearchParams): Promise<LaunchesResponse> {
    const filter: LaunchFilter = {};
    const text = (name: 'model' | 'host') => {
      const v = q.get(name);
      if (v !== null && v !== '') filter[name] = v;
    };
    text('model');
    text('host');
    const outcome = q.get('outcome');
    if (outcome !== null && outcome !== '') {
      if (!(OUTCOMES as readonly string[]).includes(outcome))
        throw new HttpError(400, `outcome=${outcome}: one of ${OUTCOMES.join(', ')}`);
      filter.outcome = outcome;
    }
    const since = q.get('since');
    if (since !== null && since !== '') {
      const n = Number(since);
      if (!/^\d+(\.\d+)?$/.test(since.trim()) || !Number.isFinite(n))
        throw new HttpError(400, `since=${since}: epoch seconds expected`);
      filter.since = n;
    }
    const where = q.getAll('where').filter((w) => w !== '');
    if (where.length) {
      filter.where = where.map((w) => {
        const eq = w.indexOf('=');
        if (eq <= 0) throw new HttpError(400, `where=${w}: key=value expected (e.g. where=tp_size=8)`);
        return { key: w.slice(0, eq), value: w.slice(eq + 1) };
      });
    }
    const limit = q.get('limit');
    filter.limit = DEFAULT_LIMIT;
    if (limit !== null && limit !== '') {
      const n = Number(limit);
      if (!/^\d+$/.test(limit) || n < 1 || n > MAX_LIMIT)
        throw new HttpError(400, `limit=${limit}: a whole number from 1 to ${MAX_LIMIT} expected`);
      filter.limit = n;
    }
    // Three queries whatever the count: the list rows (no report parsed), their benches, the targets.
    let items: LaunchListItem[];
    let benches: Map<string, BenchRecord[]>;
    let targets: TargetRecord[];
    try {
      items = await this.ledger.listItems(filter);
      benches = await this.ledger.benchesOf(items.map((i) => i.id));
      targets = await this.ledger.targets();
    } catch (e) {
      ledgerHttpError(e);
    }
    const none: BenchRecord[] = [];
    return {
      launches: items.map((i) => this.rowOf(i, targets, benches.get(i.id) ?? none)),
      targets,
    };
  }

  private async resolve(ref: string): Promise<LaunchRecord> {
    try {
      return await this.ledger.resolve(ref);
    } catch (e) {
      ledgerHttpError(e);
    }
  }

  async launch(ref: string): Promise<LaunchDetailResponse> {
    const r = await this.resolve(ref);
    const benches = await this.guard(() => this.ledger.benches(r.id));
    const { launch, series } = splitSeries(r);
    return {
      launch: scrubRecord(launch),
      series,
      benches: scrub(benches),
      targets: this.targetsFor(await this.guard(() => this.ledger.targets()), r, benches),
    };
  }

  async compare(q: URLSearchParams): Promise<CompareResponse> {
    const ids = (q.get('ids') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (ids.length < 2 || ids.length > 4)
      throw new HttpError(
        400,
        `ids=${q.get('ids') ?? ''}: name 2 to 4 launches, comma-separated (ids=a1b2,c3d4)`,
      );
    const split: Array<ReturnType<typeof splitSeries>> = [];
    for (const id of ids) split.push(splitSeries(await this.resolve(id)));
    const launches = split.map((x) => scrubRecord(x.launch));
    return { launches, series: split.map((x) => x.series), ...compareConfigs(launches) };
  }

  liveTargets(): LiveResponse {
    return { targets: scrub(this.live()) };
  }
}
