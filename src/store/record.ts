/** Building what the ledger keeps: a launch record from a report (identity, config hash, indexed numbers), and rows back into records. */

import { createRequire } from 'node:module';
import { sha256Hex } from '../core/base/sha256.js';
import { PHASES } from '../core/base/types.js';
import { VOLATILE } from '../core/campaign/diff.js';
import { nodeList } from '../core/multinode/combine.js';
import type { LaunchReport } from '../core/reading/report.js';
import { launchState } from '../core/verdict/launch-state.js';
import { machineOf, thisUser } from './identity.js';
import type {
  BenchRecord,
  BenchResult,
  IntendedLaunch,
  LaunchListItem,
  LaunchPath,
  LaunchRecord,
  LiveMark,
  LogState,
  TargetRecord,
} from './types.js';

/** Hashes made in JavaScript before node:crypto is loaded: a `status` makes a handful, a first read 200k. */
const JS_HASHES = 64;
let hashes = 0;
let nativeSha: ((text: string) => string) | null = null;

/**
 * SHA-256 cut to 16 digits: core/base/sha256.ts (the same digest, without loading node:crypto, which costs ~2 ms of
 * every `firedup status`) for the first few, then node:crypto's one-shot hash, about 4x faster per text.
 */
function sha16(text: string): string {
  if (nativeSha) return nativeSha(text).slice(0, 16);
  if (++hashes > JS_HASHES) {
    const { hash } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
    nativeSha = (t) => hash('sha256', t, 'hex');
  }
  return sha256Hex(text).slice(0, 16);
}

/**
 * sha16 remembering its last text: a launch's fingerprint is asked for twice (its record, then its row: see
 * launchWrite), and the launches of one server mostly share their config.
 */
function lastSha16(): (text: string) => string {
  let last: string | null = null;
  let hash = '';
  return (text) => {
    if (text !== last) {
      hash = sha16(text);
      last = text;
    }
    return hash;
  };
}
const fingerprintSha = lastSha16();
const configSha = lastSha16();

/**
 * A launch is where it starts in which file: the same bytes read again (by `runs`, `watch`, a resumed
 * follow) give the same id, and a relaunch appended to the file gets a new one.
 */
export function launchId(
  host: string,
  path: string,
  fileId: string | null,
  startOffset: number,
  startText = '',
): string {
  // The first line's text tells a relaunch written over a truncated file (same inode, same offset 0) from
  // the launch that was there before, whose record must not be overwritten.
  return sha16([host, path, fileId ?? '', String(startOffset), startText].join('\0'));
}

/**
 * What a launch is wherever it is read (its own path, a copy, a replay that keeps the stamps): its start time
 * and first line. Null without a start time: a first line alone (llama.cpp's `build: …`) is the same for every
 * launch of a build, and those launches keep ids of their own per file; null too when the log's times count
 * from the server's start.
 */
export function launchFingerprint(
  startTs: number | null,
  startText: string,
  relativeTime = false,
): string | null {
  // Seconds since the server started (llama.cpp's `0.00.000.816 I …` lines) are no moment in time: every
  // launch of a server starts near 0.001, and two with the same first line would be taken for one.
  if (relativeTime) return null;
  if (startTs === null || !Number.isFinite(startTs)) return null;
  return fingerprintSha(['fp', startTs.toFixed(3), startText].join('\0'));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = canonical((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/** Equal for two launches asked for with the same flags, whatever the key order or the random seed. */
export function configHash(config: Record<string, unknown>): string | null {
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) if (!VOLATILE.has(k) && v !== undefined) kept[k] = v;
  if (Object.keys(kept).length === 0) return null;
  return configSha(JSON.stringify(canonical(kept)));
}

function portOf(value: unknown): number | null {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n < 65536 ? n : null;
}

/**
 * Seconds from the launch's first line to ready. A log that begins mid-launch has no first line to count
 * from, and a wrong load time would mislead every comparison with the launch's history.
 */
function loadSeconds(rep: LaunchReport): number | null {
  if (!rep.startSeen) return null;
  const mark = rep.phases.find((p) => p.phase === 'ready') ?? rep.phases.find((p) => p.phase === 'serving');
  if (mark && mark.at !== null) return mark.at;
  if (rep.ready?.time && rep.startTs !== null) {
    const ready = Date.parse(rep.ready.time) / 1000;
    if (Number.isFinite(ready) && ready >= rep.startTs) return Math.round((ready - rep.startTs) * 100) / 100;
  }
  return null;
}

export interface RecordContext {
  host: string;
  path: string;
  fileId: string | null;
  pid?: number | null;
  /** Epoch seconds, the recording process's clock. */
  now: number;
  intended?: IntendedLaunch | null;
}

/** What `firedup launch` knows of a launch whose log does not say it: the model, the port, the start. */
function fromIntended(rep: LaunchReport, i: IntendedLaunch | null | undefined) {
  const f = i?.flags ?? {};
  const flagModel = [f.model_path, f.model, f.model_id].find(
    (x): x is string => typeof x === 'string' && x !== '',
  );
  const flagPort = typeof f.port === 'number' ? f.port : null;
  // A log without wall-clock stamps (llama-server's are seconds since start): the wall clock firedup started the server at, written as the log's own stamps
  // are (local wall time as UTC), so the launch sorts where it ran, not in 1970.
  const start = i ? i.startedAt - new Date(i.startedAt * 1000).getTimezoneOffset() * 60 : null;
  return {
    model: rep.model ?? flagModel ?? null,
    port: portOf(rep.configSummary.port) ?? flagPort,
    startTs: rep.relativeTime || rep.startTs === null ? (start ?? rep.startTs) : rep.startTs,
  };
}

export function recordFromReport(rep: LaunchReport, ctx: RecordContext): LaunchRecord {
  const known = fromIntended(rep, ctx.intended);
  return {
    id: launchId(ctx.host, ctx.path, ctx.fileId, rep.startOffset, rep.startText),
    fingerprint: launchFingerprint(rep.startTs, rep.startText, rep.relativeTime),
    host: ctx.host,
    path: ctx.path,
    fileId: ctx.fileId,
    startOffset: rep.startOffset,
    startLine: rep.startLine,
    startTs: known.startTs,
    endTs: rep.endTs,
    pid: ctx.pid ?? rep.pids[0] ?? null,
    engine: rep.engine,
    version: rep.version,
    model: known.model,
    port: known.port,
    outcome: rep.outcome,
    phase: rep.phase,
    failureClass: rep.failure?.class ?? null,
    // The command line is the config when the log prints no dump of its own.
    configHash: configHash(Object.keys(rep.config).length ? rep.config : (ctx.intended?.flags ?? rep.config)),
    loadSeconds: loadSeconds(rep),
    peakTokS: rep.throughput?.peak ?? null,
    medianTokS: rep.throughput?.median ?? null,
    report: rep,
    intended: ctx.intended ?? null,
    firstSeen: ctx.now,
    updatedAt: ctx.now,
    live: null,
    state: rep.outcome,
    paths: [
      {
        host: ctx.host,
        path: ctx.path,
        startLine: rep.startLine,
        startOffset: rep.startOffset,
        lastSeen: ctx.now,
      },
    ],
  };
}

/** A `launches` row as SQLite returns it. */
export interface LaunchRow {
  id: string;
  host: string;
  path: string;
  file_id: string | null;
  start_offset: number;
  start_line: number;
  start_ts: number | null;
  end_ts: number | null;
  pid: number | null;
  engine: string | null;
  version: string | null;
  model: string | null;
  port: number | null;
  outcome: string;
  phase: string | null;
  failure_class: string | null;
  config_hash: string | null;
  load_seconds: number | null;
  peak_tok_s: number | null;
  median_tok_s: number | null;
  report: string;
  config: string;
  intended: string | null;
  first_seen: number;
  updated_at: number;
  /** JSON of what a list row shows of the report (migration 2 filled it in for older rows). */
  summary: string | null;
  fingerprint: string | null;
  /** The LiveMark as JSON, and its state for filters (migration 3). */
  live_state: string | null;
  live: string | null;
  /** Who and where (migration 6; null in older rows), the user's notes and tags as JSON arrays. */
  machine?: string | null;
  user_name?: string | null;
  notes?: string | null;
  tags?: string | null;
}

/** What a list row shows of the report; kept in the `summary` column. */
type ListSummary = Pick<LaunchListItem, 'phases' | 'configSummary' | 'failure' | 'nodes'>;

function listSummary(rep: LaunchReport): ListSummary {
  const nodes = rep.nodes;
  return {
    // A multi-node launch lists its nodes; a one-node launch's summary stays as it was (no key).
    ...(nodes ? { nodes: nodeList(nodes) } : {}),
    phases: (rep.phases ?? []).map((p) => ({
      phase: p.phase,
      at: p.at ?? null,
      duration: p.duration ?? null,
    })),
    configSummary: rep.configSummary ?? {},
    failure: rep.failure ? { class: rep.failure.class, message: rep.failure.message } : null,
  };
}

/** The columns an upsert writes: the live verdict has a statement of its own (Ledger.setLive). */
export type LaunchWriteRow = Omit<LaunchRow, 'live_state' | 'live' | 'notes' | 'tags'>;

export function launchRow(r: LaunchRecord): LaunchWriteRow {
  return launchRowAndText(r).row;
}

/**
 * The row, and the report as JSON (what `runs --json` prints, the text a read from the ledger gives back:
 * see reportText) where it comes with the row at no cost: the report is made into JSON once, and the row's
 * copy is that text with the config cut out. Null text for a report without a config (as reportText would
 * not give it back the same).
 */
export function launchRowAndText(r: LaunchRecord): { row: LaunchWriteRow; text: string | null } {
  // The config gets a column of its own so filters read it without parsing the whole report.
  const config = JSON.stringify(r.report.config ?? {});
  let report: string | null = null;
  let text: string | null = null;
  if (r.report.config !== undefined && config !== '{}') {
    const full = JSON.stringify(r.report);
    const cut = `,"config":${config}`;
    // The report's own config is the key before its configSummary (as reportText puts it back); keys
    // inside strings cannot match, their quotes are escaped.
    const at = full.indexOf(`${cut},"configSummary":`);
    if (at >= 0) {
      text = full;
      report = full.slice(0, at) + full.slice(at + cut.length);
    }
  }
  if (report === null) {
    const { config: _, ...rest } = r.report;
    report = JSON.stringify(rest);
  }
  const row: LaunchWriteRow = {
    id: r.id,
    host: r.host,
    path: r.path,
    file_id: r.fileId,
    start_offset: r.startOffset,
    start_line: r.startLine,
    start_ts: r.startTs,
    end_ts: r.endTs,
    pid: r.pid,
    engine: r.engine,
    version: r.version,
    model: r.model,
    port: r.port,
    outcome: r.outcome,
    phase: r.phase,
    failure_class: r.failureClass,
    config_hash: r.configHash,
    load_seconds: r.loadSeconds,
    peak_tok_s: r.peakTokS,
    median_tok_s: r.medianTokS,
    report,
    config,
    intended: r.intended ? JSON.stringify(r.intended) : null,
    first_seen: r.firstSeen,
    updated_at: r.updatedAt,
    summary: JSON.stringify(listSummary(r.report)),
    fingerprint: r.fingerprint,
    // A record read before machines were kept (or from an older ledger, by `ledger push`) is named here.
    machine: r.machine ?? machineOf(r.host),
    user_name: r.user ?? thisUser(),
  };
  return { row, text };
}

/** The places a record was read at besides its own (a record read back from a ledger; one just read has none). */
export function otherPaths(r: LaunchRecord): LaunchPath[] {
  return (r.paths ?? []).filter((p) => p.host !== r.host || p.path !== r.path);
}

/**
 * A launch as the SQLite ledger writes it: its row, and what finding a twin (Ledger.twinOf) needs of its
 * report. Made from the record by whichever thread has it (bulk-writer.ts: the reading thread), so that the
 * writing thread gets plain strings and numbers.
 */
export interface LaunchWrite {
  row: LaunchWriteRow;
  pid0: number | null;
  endLine: number;
  endOffset: number;
  others: LaunchPath[];
}

export function launchWrite(given: LaunchRecord): LaunchWrite {
  return launchWriteAndText(given).write;
}

/** As launchWrite, with the report's JSON when it comes at no cost (see launchRowAndText). */
export function launchWriteAndText(given: LaunchRecord): { write: LaunchWrite; text: string | null } {
  // From the content, whatever the caller put in the field: the fingerprint is what matches copies.
  const r = {
    ...given,
    fingerprint: launchFingerprint(given.startTs, given.report.startText ?? '', given.report.relativeTime),
  };
  const { row, text } = launchRowAndText(r);
  return {
    write: {
      row,
      pid0: r.report.pids?.[0] ?? null,
      endLine: r.report.endLine,
      endOffset: r.report.endOffset,
      others: otherPaths(r),
    },
    text,
  };
}

/** The record's columns, without the report (a list row: see Ledger.listItems). */
function lightFromRow(
  row: Omit<LaunchRow, 'report' | 'config' | 'summary'>,
  paths: LaunchPath[] = [],
): Omit<LaunchRecord, 'report'> {
  const live: LiveMark | null = row.live === null ? null : JSON.parse(row.live);
  const outcome = row.outcome as LaunchRecord['outcome'];
  const own = {
    host: row.host,
    path: row.path,
    startLine: row.start_line,
    startOffset: row.start_offset,
    lastSeen: row.updated_at,
  };
  return {
    id: row.id,
    fingerprint: row.fingerprint,
    host: row.host,
    path: row.path,
    fileId: row.file_id,
    startOffset: row.start_offset,
    startLine: row.start_line,
    startTs: row.start_ts,
    endTs: row.end_ts,
    pid: row.pid,
    engine: row.engine,
    version: row.version,
    model: row.model,
    port: row.port,
    outcome,
    phase: row.phase,
    failureClass: row.failure_class,
    configHash: row.config_hash,
    loadSeconds: row.load_seconds,
    peakTokS: row.peak_tok_s,
    medianTokS: row.median_tok_s,
    intended: row.intended === null ? null : JSON.parse(row.intended),
    firstSeen: row.first_seen,
    updatedAt: row.updated_at,
    live,
    state: launchState(outcome, live),
    // The record's own path first, then the others it was read at.
    paths: [own, ...paths.filter((p) => p.host !== own.host || p.path !== own.path)],
    machine: row.machine ?? null,
    user: row.user_name ?? null,
    // Only where the user wrote some: a launch without stays as it was written.
    ...(row.notes ? { notes: JSON.parse(row.notes) } : {}),
    ...(row.tags ? { tags: JSON.parse(row.tags) } : {}),
  };
}

/** The columns a list reads: every one but the report and the config. */
export type LaunchListRow = Omit<LaunchRow, 'report' | 'config'>;

export function listItemFromRow(row: LaunchListRow, paths: LaunchPath[] = []): LaunchListItem {
  const s: Partial<ListSummary> = row.summary === null ? {} : JSON.parse(row.summary);
  return {
    ...lightFromRow(row, paths),
    phases: s.phases ?? [],
    configSummary: s.configSummary ?? {},
    failure: s.failure ?? null,
    ...(s.nodes ? { nodes: s.nodes } : {}),
  };
}

/** The list row of a record at hand (a launch just recorded), as the ledger would list it. */
export function listItemOf(r: LaunchRecord): LaunchListItem {
  const { report, ...rest } = r;
  return { ...rest, ...listSummary(report) };
}

export function launchFromRow(row: LaunchRow, paths: LaunchPath[] = []): LaunchRecord {
  return { ...lightFromRow(row, paths), report: withConfig(JSON.parse(row.report), JSON.parse(row.config)) };
}

/**
 * The report with its config put back where the analyzer has it (before `configSummary`), so that a launch
 * read back from the ledger prints as the same JSON, key for key, as one just read (`runs --json`).
 */
function withConfig(rest: Record<string, unknown>, config: unknown): LaunchRecord['report'] {
  if (!('configSummary' in rest)) return { ...rest, config } as unknown as LaunchRecord['report'];
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(rest)) {
    if (k === 'configSummary') out.config = config;
    out[k] = rest[k];
  }
  return out as unknown as LaunchRecord['report'];
}

/**
 * The report's JSON as the analyzer's report prints it (`runs --json`), from the two columns it is kept in,
 * without parsing it: the config goes back before `configSummary`. The first `,"configSummary":` is that key
 * of the report itself: a quote inside a string is escaped (`\"`), and no object before it in a report (a
 * failure, its evidence, a progress bar) has a key of that name. Parsed and rebuilt if it is not there.
 */
export function reportText(report: string, config: string): string {
  const at = report.indexOf(',"configSummary":');
  if (at < 0) return JSON.stringify(withConfig(JSON.parse(report), JSON.parse(config)));
  return `${report.slice(0, at)},"config":${config}${report.slice(at)}`;
}

/** Of rows in file order, one per start offset: the last (see Ledger.launchesAtLog). */
export function lastPerOffset<T extends { startOffset: number }>(rows: T[]): T[] {
  const out: T[] = [];
  for (const r of rows) {
    if (out.length && out[out.length - 1]!.startOffset === r.startOffset) out[out.length - 1] = r;
    else out.push(r);
  }
  return out;
}

export interface LogRow {
  id: number;
  host: string;
  path: string;
  file_id: string | null;
  head_hash: string | null;
  head_len: number;
  tail_hash?: string | null;
  offset: number;
  lines: number;
  checkpoint: Buffer | null;
  updated_at: number;
}

export function logFromRow(row: LogRow): LogState {
  return {
    id: row.id,
    host: row.host,
    path: row.path,
    fileId: row.file_id,
    headHash: row.head_hash,
    headLen: row.head_len,
    tailHash: row.tail_hash ?? null,
    offset: row.offset,
    lines: row.lines,
    // A plain Uint8Array, as the analyzer handed it over (SQLite gives a Buffer).
    checkpoint: row.checkpoint === null ? null : new Uint8Array(row.checkpoint),
    updatedAt: row.updated_at,
  };
}

export interface BenchRow {
  id: number;
  launch_id: string | null;
  imported_at: number;
  result: string;
  unattached?: string | null;
  machine?: string | null;
  user_name?: string | null;
}

export function benchFromRow(row: BenchRow): BenchRecord {
  return {
    ...(JSON.parse(row.result) as BenchResult),
    id: row.id,
    launchId: row.launch_id,
    importedAt: row.imported_at,
    // Who kept it, for a bench with no launch to say where it ran.
    ...(row.launch_id === null
      ? { unattached: row.unattached ?? null, machine: row.machine ?? null, user: row.user_name ?? null }
      : {}),
  };
}

/** What `firedup note` and `firedup tag` change on a launch. */
export interface Annotation {
  note?: { text: string; at: number; user: string | null };
  tag?: string;
  untag?: string;
}

/** The notes and tags columns after `change` (JSON arrays; a tag given twice is kept once). */
export function annotated(
  row: { notes?: string | null; tags?: string | null },
  change: Annotation,
): { notes: string | null; tags: string | null } {
  const notes: unknown[] = row.notes ? JSON.parse(row.notes) : [];
  let tags: string[] = row.tags ? JSON.parse(row.tags) : [];
  if (change.note) notes.push(change.note);
  if (change.tag && !tags.includes(change.tag)) tags.push(change.tag);
  if (change.untag) tags = tags.filter((t) => t !== change.untag);
  return {
    notes: notes.length ? JSON.stringify(notes) : null,
    tags: tags.length ? JSON.stringify(tags) : null,
  };
}

export interface TargetRow {
  id: number;
  model: string | null;
  metric: string;
  op: string;
  value: number;
  expr: string;
}

export function targetFromRow(row: TargetRow): TargetRecord {
  return { ...row, op: row.op as TargetRecord['op'] };
}

/**
 * In an upsert's `DO UPDATE … WHERE`: a launch recorded with its nodes (read from every node's log) is not
 * replaced by a read of one node's log alone, which knows less (SQL shared by the SQLite and Postgres ledgers;
 * `"nodes":` appears unescaped in the summary JSON only as its key).
 */
export const KEEPS_NODES = `NOT (coalesce(launches.summary, '') LIKE '%"nodes":%' AND coalesce(excluded.summary, '') NOT LIKE '%"nodes":%')`;

/**
 * How much of a launch one reading of it saw: what decides, between two readings of the same launch at two
 * places (a log and its copy, or a copy made while it was still being written), which one the record keeps.
 */
export interface Seen {
  /** Lines from its first to its last. */
  span: number;
  bytes: number;
  phase: string | null;
  outcome: string;
  loadSeconds: number | null;
  peakTokS: number | null;
}

/**
 * The columns of a `launches` row that make its Seen, as `held*` names (SQLite's JSON operators; Postgres has
 * its own in pg/store.ts).
 */
export const SEEN_SQL = `(report ->> '$.endLine') - start_line AS held_span,
  (report ->> '$.endOffset') - start_offset AS held_bytes, phase AS held_phase, outcome AS held_outcome,
  load_seconds AS held_load, peak_tok_s AS held_peak`;

export interface SeenRow {
  held_span: number | null;
  held_bytes: number | null;
  held_phase: string | null;
  held_outcome: string;
  held_load: number | null;
  held_peak: number | null;
}

export function seenOfRow(r: SeenRow): Seen {
  return {
    span: Number(r.held_span ?? 0),
    bytes: Number(r.held_bytes ?? 0),
    phase: r.held_phase,
    outcome: r.held_outcome,
    loadSeconds: r.held_load,
    peakTokS: r.held_peak,
  };
}

export function seenOfWrite(w: LaunchWrite): Seen {
  const r = w.row;
  return {
    span: w.endLine - r.start_line,
    bytes: w.endOffset - r.start_offset,
    phase: r.phase,
    outcome: r.outcome,
    loadSeconds: r.load_seconds,
    peakTokS: r.peak_tok_s,
  };
}

const OPEN_OUTCOMES: ReadonlySet<string> = new Set(['in_progress', 'ready', 'serving']);
const phaseAt = (p: string | null): number => (p === null ? -1 : (PHASES as readonly string[]).indexOf(p));

/**
 * True when reading `a` may replace the record made from reading `b` of the same launch at another place: it
 * saw at least as much by every measure (lines, bytes, phase reached, a load time, the peak throughput, an
 * end) and more by one. A reading that saw less by any measure, or no more, never replaces: a copy cut short
 * would take back the load time or the peak the record knows, and two equal copies would take turns.
 */
export function sawMore(a: Seen, b: Seen): boolean {
  const known = (x: number | null) => (x === null ? 0 : 1);
  const steps = [
    a.span - b.span,
    a.bytes - b.bytes,
    phaseAt(a.phase) - phaseAt(b.phase),
    known(a.loadSeconds) - known(b.loadSeconds),
    (a.peakTokS ?? -1) - (b.peakTokS ?? -1),
    (OPEN_OUTCOMES.has(a.outcome) ? 0 : 1) - (OPEN_OUTCOMES.has(b.outcome) ? 0 : 1),
  ];
  return steps.every((d) => d >= 0) && steps.some((d) => d > 0);
}
