/**
 * The JSON API over the ledger and the watched targets. Each handler takes the parsed query and returns
 * the body; a bad parameter or an unknown launch throws HttpError, which the server sends as
 * `{ "error": "one line" }`. Every record passes through scrub() on its way out.
 */

import { sweepReport } from '../app/sweep-report.js';
import type { BenchRecord, LaunchRecord, TargetRecord } from '../core/campaign/records.js';
import { evaluateTargets } from '../core/campaign/targets.js';
import { summaryKeys } from '../core/reading/report.js';
import { LAUNCH_STATES } from '../core/verdict/launch-state.js';
import type { LedgerStore, SweepSummary } from '../store/ledger-store.js';
import { listItemOf } from '../store/record.js';
import {
  LAUNCH_SORT_KEYS,
  type LaunchFacets,
  type LaunchFilter,
  type LaunchListItem,
  type LaunchSortKey,
  LedgerError,
  MAX_TERMS,
} from '../store/types.js';
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
import { lastLook } from './last-look.js';
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
/**
 * One page of the table at a time: past MAX_LIMIT a request is asking for the whole ledger (100k launches were
 * 90 MB and most of a GB of serve's memory per load), which the table never needs.
 */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;
/** An offset past the biggest ledger we know of is a typo; bounded so OFFSET stays a number the database takes. */
const MAX_OFFSET = 100_000_000;

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
  // The config at `.config`, as every launch JSON has it (status, runs, show): `report.config` is the same.
  const config = (r.report?.config ?? {}) as Record<string, unknown>;
  const thr = r.report?.throughput;
  if (!thr) return { launch: { ...r, config } as ApiLaunch, series: null };
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
  return { launch: { ...r, config, report: { ...r.report, throughput: rest } }, series: { ts, tokS } };
}

/** `name=` as a whole number in [min, max], or undefined when absent; anything else is a one-line 400. */
function wholeNumber(q: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max)
    throw new HttpError(400, `${name}=${v.slice(0, 40)}: a whole number from ${min} to ${max} expected`);
  return n;
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
    const search = q.get('q');
    if (search !== null && search.trim() !== '') this.search(search, filter);
    const sort = q.get('sort');
    const dir = q.get('dir');
    if (dir !== null && dir !== '' && dir !== 'asc' && dir !== 'desc')
      throw new HttpError(400, `dir=${dir}: asc or desc expected`);
    if (sort !== null && sort !== '') {
      if (!(LAUNCH_SORT_KEYS as readonly string[]).includes(sort))
        throw new HttpError(400, `sort=${sort}: one of ${LAUNCH_SORT_KEYS.join(', ')}`);
      filter.sort = { by: sort as LaunchSortKey, dir: dir === 'asc' ? 'asc' : 'desc' };
    } else if (dir === 'asc') filter.sort = { by: 'start', dir: 'asc' };
    filter.limit = wholeNumber(q, 'limit', 1, MAX_LIMIT) ?? DEFAULT_LIMIT;
    filter.offset = wholeNumber(q, 'offset', 0, MAX_OFFSET) ?? 0;
    // A few queries whatever the ledger holds: the page's rows (no report parsed), their benches, the
    // targets, the count; the filter values only when asked (the page asks once, not per page turned).
    let items: LaunchListItem[];
    let benches: Map<string, BenchRecord[]>;
    let targets: TargetRecord[];
    let total: number;
    let facets: LaunchFacets | undefined;
    try {
      items = await this.ledger.listItems(filter);
      benches = await this.ledger.benchesOf(items.map((i) => i.id));
      targets = await this.ledger.targets();
      // A page short of its limit says the count itself (the usual case: one page).
      total =
        items.length < filter.limit && (items.length > 0 || filter.offset === 0)
          ? filter.offset + items.length
          : await this.ledger.countLaunches(filter);
      if (q.get('facets') === '1') facets = await this.ledger.launchFacets();
    } catch (e) {
      ledgerHttpError(e);
    }
    const none: BenchRecord[] = [];
    return {
      launches: items.map((i) => this.rowOf(i, targets, benches.get(i.id) ?? none)),
      targets,
      total,
      offset: filter.offset,
      limit: filter.limit,
      ...(facets ? { facets: scrub(facets) } : {}),
    };
  }

  /**
   * The search box: `key=value` words are config filters as `runs --where` takes them (`tp=8` finds tp_size
   * and tensor_parallel_size), the other words must each occur in the launch's text.
   */
  private search(text: string, filter: LaunchFilter): void {
    const words = text
      .trim()
      .split(/\s+/)
      .slice(0, MAX_TERMS + 1);
    if (words.length > MAX_TERMS)
      throw new HttpError(400, `q=${text.slice(0, 80)}: at most ${MAX_TERMS} words to search for`);
    for (const w of words) {
      const eq = w.indexOf('=');
      if (eq > 0) {
        const key = w.slice(0, eq);
        (filter.where ??= []).push({ key, value: w.slice(eq + 1), keys: summaryKeys(key) });
      } else (filter.text ??= []).push(w);
    }
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
      lastLook: scrub(lastLook(r)),
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
