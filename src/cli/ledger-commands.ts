/**
 * The commands that read and write the ledger: `runs` without a log (the recorded history), `show`, `diff`
 * and `target`. `bench import` is in bench-import.ts. Every LedgerError becomes a one-line UsageError.
 */
import fs from 'node:fs';
import { explainNoLaunch, isRemote, launchRecords } from '../app/read-log.js';
import { logIdentity, thisUser } from '../app/recording.js';
import { bestBench } from '../core/campaign/bench/select.js';
import { diffLaunches } from '../core/campaign/launch-diff.js';
import type { LaunchRecord } from '../core/campaign/records.js';
import { evaluateTargets, parseTarget, TargetParseError } from '../core/campaign/targets.js';
import { redactText } from '../core/config/redact.js';
import { type NodeListEntry, nodeList } from '../core/multinode/combine.js';
import { summaryKeys } from '../core/reading/report.js';
import { LAUNCH_STATES } from '../core/verdict/launch-state.js';
import type { VerdictEvidence } from '../core/verdict/verdict.js';
import type { LedgerStore } from '../store/ledger-store.js';

import { isUrl } from '../store/ledger-url.js';
import { openLedger, openLedgerForReading } from '../store/open.js';
import { type LaunchFilter, LedgerError, type TargetRecord } from '../store/types.js';
import { choice, type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { fmtValue } from './format.js';
import { formatDiff } from './format-diff.js';
import { formatLedgerRuns, formatShow, formatTargets, type ListedLaunch } from './format-ledger.js';
import { formatLines, takeLinesFlag } from './log-lines.js';
import { engineFlag, readLogForCli, sshFlags } from './read.js';
import { ledgerFile, withRecording } from './recording.js';
import { parseSince } from './since.js';
import { colorWanted, makeStyle, type Style } from './style.js';

export const LEDGER_FLAGS: Record<string, FlagSpec> = {
  ledger: { type: 'string' },
  json: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', alias: 'h' },
};

export const LEDGER_HELP = `Ledger (every launch firedup has read; --ledger PATH, else FIREDUP_LEDGER, else ~/.local/share/firedup/ledger.db):
  firedup runs [--model M] [--host H] [--since 2h|3d|2026-11-30] [--outcome crashed] [--where key=value]...
               [--limit N] [--json]
                                    recorded launches, newest first: load time, tok/s, best bench, the flags
                                    that vary between them, targets met
  firedup show <id> [--json] [--lines [N]]
                                    one launch in full: phases, failure with evidence, benches, targets;
                                    --lines: the log around each piece of evidence (N lines of context,
                                    default 3) and the command to open it there
  firedup forget <id>... | --path LOG [--everywhere]
                                    remove launches (with their benchmarks) from the ledger; --path: the
                                    log's place and the launches only it holds (a copy's record stays);
                                    --everywhere: the log's launches wherever they were read
  firedup diff <a> <b> [--json]     two launches side by side, only what differs, grouped; ids (a unique
                                    prefix, last, last~N) or two logs (their latest launches), or one log
                                    (its last two launches)
  firedup bench run --url URL [--concurrency 1,8,64] [--rate R] [--requests N] ... (bench run --help)
                                    benchmark a server with firedup's load generator; recorded on its launch
  firedup bench import <file> [--launch ID] [--host H] [--port P]
                                    attach sglang.bench_serving / vllm bench serve results (text, JSONL,
                                    --save-result JSON) to the launch that was serving while each ran
  firedup bench list                 benches kept without a launch (no launch matched), with why
  firedup bench attach <N> <launch> · bench detach <N> · bench rm <N>
                                    put bench #N on the launch that served it, take it off, or delete it
  firedup note <id> "text" · tag <id> NAME [--rm]
                                    a note or a tag on a launch (show and runs --json carry them)
  firedup target add "output_tok_s >= 1000" [--model M] · target list · target rm <id>
`;

function out(s: string): void {
  process.stdout.write(s);
}

function style(flags: Record<string, unknown>): Style {
  return makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
}

export function ledgerPath(flags: Record<string, unknown>): string {
  return ledgerFile(flags);
}

/** Runs `fn` with the ledger open, closing it after; its errors become one-line usage errors. */
export async function withLedger<T>(
  flags: Record<string, unknown>,
  fn: (l: LedgerStore) => T | Promise<T>,
  access: 'write' | 'read' = 'write',
): Promise<T> {
  let ledger: LedgerStore | undefined;
  try {
    ledger =
      access === 'read' ? await openForReading(ledgerPath(flags)) : await openLedger(ledgerPath(flags));
    return await fn(ledger);
  } catch (e) {
    if (e instanceof LedgerError) throw new UsageError(e.message);
    throw e;
  } finally {
    await ledger?.close();
  }
}

/** A reading command on a ledger it may not write (a read-only file or directory) reads a copy of it. */
export function openForReading(file: string): Promise<LedgerStore> {
  return openLedgerForReading(file, fs.existsSync);
}

/** A read-only command on a ledger that does not exist yet answers "nothing recorded" without creating one. */
function missingLedger(flags: Record<string, unknown>): string | null {
  const p = ledgerPath(flags);
  // A server is asked, not looked for on disk: opening it says whether it is there.
  return isUrl(p) || fs.existsSync(p) ? null : p;
}

function help(): number {
  out(LEDGER_HELP);
  return 0;
}

// ---- runs (no log)

export const RUNS_FLAGS: Record<string, FlagSpec> = {
  ...LEDGER_FLAGS,
  model: { type: 'string' },
  host: { type: 'string' },
  since: { type: 'string' },
  outcome: { type: 'string' },
  where: { type: 'string', multi: true },
  limit: { type: 'string' },
  // Accepted so `runs --engine X` without a log gets a clear answer, not "unknown option".
  engine: { type: 'string' },
  'ssh-config': { type: 'string' },
  'ssh-option': { type: 'string', multi: true },
};

/** True when `runs` was given no log: it lists the ledger instead of reading a file. */
export function isLedgerRuns(argv: string[]): boolean {
  try {
    return parseArgs(argv, RUNS_FLAGS, 'runs').positionals.length === 0;
  } catch {
    return false;
  }
}

const OUTCOMES: readonly string[] = LAUNCH_STATES;
const DEFAULT_LIMIT = 50;

function runsFilter(flags: Record<string, unknown>): LaunchFilter & { limit: number } {
  const f: LaunchFilter & { limit: number } = { limit: DEFAULT_LIMIT };
  if (typeof flags.model === 'string') f.model = flags.model;
  if (typeof flags.host === 'string') f.host = flags.host;
  if (typeof flags.since === 'string') f.since = parseSince(flags.since, Date.now() / 1000);
  if (typeof flags.outcome === 'string')
    f.outcome = choice('runs', '--outcome', flags.outcome, OUTCOMES, 'a state');
  if (flags.where !== undefined)
    f.where = (flags.where as string[]).map((w) => {
      const eq = w.indexOf('=');
      if (eq <= 0)
        throw new UsageError(
          `runs: --where ${w}: expected key=value with a config key, e.g. --where moe_runner_backend=flashinfer_trtllm`,
        );
      // `tp=8` as the summary line prints it finds tp_size (SGLang) and tensor_parallel_size (vLLM).
      const key = w.slice(0, eq).trim();
      return { key, value: w.slice(eq + 1).trim(), keys: summaryKeys(key) };
    });
  if (typeof flags.limit === 'string') {
    const n = Number(flags.limit);
    if (!/^\d+$/.test(flags.limit) || n < 1 || n > 1_000_000)
      throw new UsageError(
        `runs: --limit ${flags.limit}: expected a count from 1 to 1000000, e.g. --limit 20`,
      );
    f.limit = n;
  }
  return f;
}

/**
 * Why a `--where` matched nothing, from the launches the other filters keep: the values that key had, or
 * that no config has the key (with the keys that contain the word, to catch `tp` for `tp_size`).
 */
async function explainWhere(ledger: LedgerStore, filter: LaunchFilter): Promise<string> {
  const { where = [], limit: _limit, ...rest } = filter;
  const pool = await ledger.list(rest);
  const parts: string[] = [];
  for (const w of where) {
    const counts = new Map<string, number>();
    let has = 0;
    for (const r of pool) {
      const cfg = r.report.config ?? {};
      const k = (w.keys ?? [w.key]).find((x) => x in cfg);
      if (k === undefined) continue;
      has++;
      const v = fmtValue(cfg[k]);
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    if (has === 0) {
      const similar = new Set<string>();
      for (const r of pool)
        for (const k of Object.keys(r.report.config ?? {}))
          if (k.includes(w.key) || w.key.includes(k)) similar.add(k);
      const hint = similar.size ? `; similar keys: ${[...similar].sort().slice(0, 6).join(', ')}` : '';
      parts.push(`no recorded config has a key ${w.key}${hint}`);
    } else {
      const seen = [...counts.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([v, n]) => `${v} (${n} launch${n === 1 ? '' : 'es'})`)
        .join(', ');
      parts.push(`${w.key} was ${seen}`);
    }
  }
  const of = `${pool.length} launch${pool.length === 1 ? '' : 'es'}${Object.keys(rest).length ? ' matching the other filters' : ''}`;
  return `no launch has ${where.map((w) => `${w.key}=${w.value}`).join(' and ')}: among ${of}, ${parts.join('; ')}`;
}

export async function ledgerRunsCommand(argv: string[]): Promise<number> {
  const { flags } = parseArgs(argv, RUNS_FLAGS, 'runs');
  if (flags.help) return help();
  if (flags.engine !== undefined || flags['ssh-config'] !== undefined || flags['ssh-option'] !== undefined)
    throw new UsageError(
      'runs: --engine and --ssh-* apply to a log; name one (firedup runs server.log), or drop them to list the ledger',
    );
  const filter = runsFilter(flags);
  const missing = missingLedger(flags);
  if (missing) {
    if (flags.json) out(`${JSON.stringify({ ledger: missing, launches: [] })}\n`);
    else
      out(
        `no launches recorded yet: ledger ${missing} does not exist (reading a log records its launches)\n`,
      );
    return 0;
  }
  return withLedger(
    flags,
    async (ledger) => {
      const recs = await ledger.list({ ...filter, limit: filter.limit + 1 });
      const more = recs.length > filter.limit;
      const shown = recs.slice(0, filter.limit);
      // One query for every listed launch's benches, not one per launch.
      const benchesOf = await ledger.benchesOf(shown.map((r) => r.id));
      const allTargets = await ledger.targets();
      const list: ListedLaunch[] = shown.map((rec) => {
        const benches = benchesOf.get(rec.id) ?? [];
        return {
          rec,
          bench: bestBench(benches),
          targets: evaluateTargets(forModel(allTargets, rec.model), rec, benches),
        };
      });
      const why = list.length === 0 && filter.where?.length ? await explainWhere(ledger, filter) : null;
      if (flags.json) {
        out(
          `${JSON.stringify({
            ledger: ledger.path,
            launches: list.map(({ rec, bench, targets }) => ({ ...summary(rec), bench, targets })),
            more,
            ...(why ? { note: why } : {}),
          })}\n`,
        );
        return 0;
      }
      if (list.length === 0) {
        const filtered = Object.keys(filter).length > 1;
        out(
          `${why ?? (filtered ? `no recorded launch matches these filters (ledger ${ledger.path})` : `no launches recorded yet in ledger ${ledger.path}`)}\n`,
        );
        return 0;
      }
      out(formatLedgerRuns(list, style(flags), { ledger: ledger.path, more, limit: filter.limit }));
      return 0;
    },
    'read',
  );
}

/** The targets that apply to a model (as LedgerStore.targets(model) answers): the global ones and its own. */
function forModel(all: TargetRecord[], model: string | null): TargetRecord[] {
  return all.filter((t) => t.model === null || t.model === model);
}

/** A launch without its report (phases, series, config): what a list needs. `show --json` gives the rest. */
function summary(
  rec: LaunchRecord,
): Omit<LaunchRecord, 'report'> & { config: Record<string, unknown>; nodes?: NodeListEntry[] } {
  const { report, ...rest } = rec;
  // A multi-node launch lists its nodes; a one-node launch's JSON stays as it was.
  return { ...rest, config: report.config ?? {}, ...(report.nodes ? { nodes: nodeList(report.nodes) } : {}) };
}

// ---- show

export async function showCommand(argv0: string[]): Promise<number> {
  const { argv, lines } = takeLinesFlag(argv0, 'show');
  const { flags, positionals } = parseArgs(argv, LEDGER_FLAGS, 'show');
  if (flags.help) return help();
  if (positionals.length !== 1)
    throw new UsageError(
      `show: name one launch: firedup show <id> (a unique prefix, last or last~N; firedup runs lists them)`,
    );
  const ref = positionals[0]!;
  const missing = missingLedger(flags);
  if (missing)
    throw new UsageError(`show ${ref}: no launches recorded yet (ledger ${missing} does not exist)`);
  return withLedger(
    flags,
    async (ledger) => {
      const rec = await ledger.resolve(ref);
      const benches = await ledger.benches(rec.id);
      const targets = evaluateTargets(await ledger.targets(rec.model), rec, benches);
      if (lines !== null) {
        if (flags.json) throw new UsageError('show: --lines prints the log itself; leave out --json');
        const places = rec.paths.length ? rec.paths : [{ ...rec, startLine: rec.startLine }];
        const live = rec.state === rec.live?.state ? rec.live.evidence : [];
        out(formatLines(rec.report, places, lines, style(flags), live as VerdictEvidence[]));
        return 0;
      }
      // `.config` where status, runs and the API put it; `.report.config` (the full report's) stays for readers.
      if (flags.json)
        out(`${JSON.stringify({ ...rec, config: rec.report.config ?? {}, benches, targets })}\n`);
      else out(formatShow({ rec, benches, targets }, style(flags)));
      return 0;
    },
    'read',
  );
}

// ---- diff

export const DIFF_FLAGS: Record<string, FlagSpec> = {
  ...LEDGER_FLAGS,
  'no-ledger': { type: 'boolean' },
  engine: { type: 'string' },
  'ssh-config': { type: 'string' },
  'ssh-option': { type: 'string', multi: true },
};

const isLog = (arg: string): boolean => arg !== '-' && (isRemote(arg) || fs.existsSync(arg));

/**
 * A log's launches as records. Recorded in the ledger when there is one, so the ids `diff` prints are the
 * ledger's and `show` and `diff` accept them afterwards; two logs compared need no ledger, and get none created.
 */
async function logRecords(arg: string, flags: Record<string, unknown>): Promise<LaunchRecord[]> {
  const skip = flags['no-ledger'] || (flags.ledger === undefined && process.env.FIREDUP_LEDGER === 'off');
  const record = !skip && missingLedger(flags) === null;
  return withRecording(record ? flags : { 'no-ledger': true }, async (ledger) => {
    const res = await readLogForCli(arg, { engine: engineFlag(flags.engine) }, sshFlags(flags), ledger);
    if (!res.report.launches.length) throw new UsageError(`diff: ${explainNoLaunch(arg, res)}`);
    return await launchRecords(arg, res, ledger);
  });
}

export async function diffCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, DIFF_FLAGS, 'diff');
  if (flags.help) return help();
  const logs = positionals.map(isLog);
  let a: LaunchRecord;
  let b: LaunchRecord;
  if (positionals.length === 1 && logs[0]) {
    const recs = await logRecords(positionals[0]!, flags);
    if (recs.length < 2)
      throw new UsageError(
        `diff: ${positionals[0]} holds one launch; give two logs or two launch ids to compare`,
      );
    [a, b] = [recs[recs.length - 2]!, recs[recs.length - 1]!];
  } else if (positionals.length !== 2) {
    throw new UsageError(
      'diff: name two launches (ids, unique prefixes, last, last~1) or two logs: firedup diff last~1 last',
    );
  } else if (logs[0] && logs[1]) {
    a = (await logRecords(positionals[0]!, flags)).pop()!;
    b = (await logRecords(positionals[1]!, flags)).pop()!;
  } else if (logs[0] || logs[1]) {
    const [file, other] = logs[0] ? positionals : [positionals[1]!, positionals[0]!];
    throw new UsageError(
      `diff: ${file} is a log but ${other} is not; give two logs, or two launch ids (firedup runs lists them)`,
    );
  } else {
    const missing = missingLedger(flags);
    if (missing)
      throw new UsageError(
        `diff: ${positionals.join(' ')} are not log files, and no launches are recorded (ledger ${missing} does not exist)`,
      );
    return withLedger(
      flags,
      async (ledger) => {
        const ra = await ledger.resolve(positionals[0]!);
        const rb = await ledger.resolve(positionals[1]!);
        if (ra.id === rb.id)
          throw new UsageError(
            `diff: ${positionals[0]} and ${positionals[1]} are the same launch ${ra.id.slice(0, 8)}; compare it with another (e.g. last~1)`,
          );
        printDiff(diffLaunches(ra, rb, await ledger.benches(ra.id), await ledger.benches(rb.id)), flags);
        return 0;
      },
      'read',
    );
  }
  printDiff(diffLaunches(a, b), flags);
  return 0;
}

function printDiff(d: ReturnType<typeof diffLaunches>, flags: Record<string, unknown>): void {
  // The config changes are in the diff; each side's whole config would only repeat them.
  const side = (r: LaunchRecord) => {
    const { config: _config, ...rest } = summary(r);
    return rest;
  };
  if (flags.json) out(`${JSON.stringify({ ...d, a: side(d.a), b: side(d.b) })}\n`);
  else out(formatDiff(d, style(flags)));
}

// ---- target

export const TARGET_FLAGS: Record<string, FlagSpec> = { ...LEDGER_FLAGS, model: { type: 'string' } };

export async function targetCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { flags, positionals } = parseArgs(rest, TARGET_FLAGS, `target ${sub ?? ''}`.trim());
  if (flags.help || sub === '--help' || sub === '-h') return help();
  const model = typeof flags.model === 'string' ? flags.model : null;
  switch (sub) {
    case 'add': {
      if (positionals.length !== 1)
        throw new UsageError(
          'target add: give one expression in quotes: firedup target add "output_tok_s >= 1000"',
        );
      let t: ReturnType<typeof parseTarget>;
      try {
        t = parseTarget(positionals[0]!);
      } catch (e) {
        if (e instanceof TargetParseError) throw new UsageError(`target add: ${e.message}`);
        throw e;
      }
      return withLedger(flags, async (ledger) => {
        const before = new Set((await ledger.targets()).map((x) => x.id));
        const rec = await ledger.addTarget({ model, ...t });
        const again = before.has(rec.id) ? ', already set' : '';
        if (flags.json) out(`${JSON.stringify(rec)}\n`);
        else out(`target #${rec.id}: ${rec.expr} (${rec.model ?? 'all models'}${again})\n`);
        return 0;
      });
    }
    case 'list': {
      if (positionals.length)
        throw new UsageError(`target list: takes no arguments (got ${positionals.join(' ')})`);
      if (missingLedger(flags)) {
        out(flags.json ? '[]\n' : formatTargets([], style(flags)));
        return 0;
      }
      return withLedger(
        flags,
        async (ledger) => {
          const ts = model === null ? await ledger.targets() : await ledger.targets(model);
          out(flags.json ? `${JSON.stringify(ts)}\n` : formatTargets(ts, style(flags)));
          return 0;
        },
        'read',
      );
    }
    case 'rm': {
      const id = positionals[0];
      if (positionals.length !== 1 || !/^#?\d+$/.test(id!))
        throw new UsageError(
          'target rm: give the target number: firedup target rm 3 (firedup target list shows them)',
        );
      const n = Number(id!.replace('#', ''));
      return withLedger(flags, async (ledger) => {
        if (!(await ledger.removeTarget(n)))
          throw new UsageError(`target rm ${id}: no target #${n} (firedup target list shows them)`);
        out(`removed target #${n}\n`);
        return 0;
      });
    }
    default:
      throw new UsageError(
        `target: ${sub === undefined ? 'expected' : `unknown subcommand '${sub}';`} add, list or rm (firedup target add "output_tok_s >= 1000")`,
      );
  }
}

// ---- forget

export const FORGET_FLAGS: Record<string, FlagSpec> = {
  ...LEDGER_FLAGS,
  path: { type: 'string' },
  everywhere: { type: 'boolean' },
};

const launches = (n: number) => `${n} launch${n === 1 ? '' : 'es'}`;
const short = (ids: readonly string[]) =>
  ids.length ? ` (${ids.map((id) => id.slice(0, 8)).join(', ')})` : '';

/**
 * `forget ID...` or `forget --path LOG`: removes launches, their benchmarks and the places they were read
 * at. `--path` forgets one place: where reading that log stopped (reading it again starts afresh) and the
 * launches read only there; a launch a copy (or the original) holds too stays, under the other place.
 * `--path LOG --everywhere` forgets LOG's launches wherever they were read. A launch forgotten comes back
 * if a log that holds it is read again: the ledger records what it reads.
 */
export async function forgetCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FORGET_FLAGS, 'forget');
  if (flags.help) return help();
  const byPath = typeof flags.path === 'string' ? flags.path : null;
  if ((byPath === null) === (positionals.length === 0))
    throw new UsageError(
      'forget: name launches (firedup forget 4c94bc82 …) or one log (firedup forget --path server.log), not both',
    );
  if (flags.everywhere && byPath === null)
    throw new UsageError(
      'forget: --everywhere goes with --path LOG (a launch named by id is forgotten everywhere already)',
    );
  const missing = missingLedger(flags);
  if (missing) throw new UsageError(`forget: nothing recorded (ledger ${missing} does not exist)`);
  return withLedger(flags, async (ledger) => {
    if (byPath !== null) {
      const where = logIdentity(byPath);
      if (!where) throw new UsageError('forget: --path needs a file, not standard input');
      const log = { host: where.host, path: where.path };
      const at = `${log.host === 'localhost' ? '' : `${log.host}:`}${log.path}`;
      let res: { forgotten: string[]; launches: number; benches: number; kept: string[] };
      if (flags.everywhere) {
        const ids = await ledger.launchIdsAt(log);
        res = { ...(await ledger.forget(ids, log)), forgotten: ids, kept: [] };
      } else res = await ledger.forgetPlace(log);
      if (flags.json) {
        out(
          `${JSON.stringify({ forgotten: res.forgotten, launches: res.launches, benches: res.benches, kept: res.kept, log })}
`,
        );
        return 0;
      }
      const benches = res.benches ? `, with ${res.benches} benchmark run${res.benches === 1 ? '' : 's'}` : '';
      const kept = res.kept.length
        ? `; kept ${launches(res.kept.length)}${short(res.kept)} also read elsewhere (forget --path ${byPath} --everywhere forgets ${res.kept.length === 1 ? 'it' : 'them'} too)`
        : '';
      const everywhere = flags.everywhere && res.launches ? ', from every place they were read at' : '';
      out(
        `forgot ${launches(res.launches)}${short(res.forgotten)} read at ${at}${everywhere}${benches}${kept}\n`,
      );
      return 0;
    }
    const named: string[] = [];
    for (const ref of positionals) named.push((await ledger.resolve(ref)).id);
    const ids = [...new Set(named)];
    const n = await ledger.forget(ids);
    const benches = n.benches ? `, with ${n.benches} benchmark run${n.benches === 1 ? '' : 's'}` : '';
    if (flags.json)
      out(`${JSON.stringify({ forgotten: ids, launches: n.launches, benches: n.benches, log: null })}
`);
    else
      out(`forgot ${launches(n.launches)}${short(ids)}${benches}
`);
    return 0;
  });
}

// ---- note, tag

export const TAG_FLAGS: Record<string, FlagSpec> = { ...LEDGER_FLAGS, rm: { type: 'boolean' } };

/**
 * `note LAUNCH "text"` and `tag LAUNCH NAME` (`--rm` takes a tag off): what the log cannot say (why it was
 * relaunched, which run is the baseline), kept on the launch for `show` and `runs --json`.
 */
export async function annotateCommand(which: 'note' | 'tag', argv: string[]): Promise<number> {
  const flagSpec = which === 'tag' ? TAG_FLAGS : LEDGER_FLAGS;
  const { flags, positionals } = parseArgs(argv, flagSpec, which);
  if (flags.help) return help();
  const usage = which === 'note' ? 'firedup note last "relaunched with tp=8"' : 'firedup tag last baseline';
  if (positionals.length !== 2)
    throw new UsageError(`${which}: name the launch and the ${which === 'note' ? 'text' : 'tag'}: ${usage}`);
  const [ref, value] = [positionals[0]!, positionals[1]!.trim()];
  if (value === '')
    throw new UsageError(`${which}: the ${which === 'note' ? 'note' : 'tag'} is empty: ${usage}`);
  if (which === 'tag' && !/^[\w.:@/+-]{1,64}$/.test(value))
    throw new UsageError(
      `tag: ${value}: a tag is one word of letters, digits and . _ - : @ / + (at most 64): ${usage}`,
    );
  if (which === 'note' && value.length > 2000) throw new UsageError('note: at most 2000 characters');
  const missing = missingLedger(flags);
  if (missing)
    throw new UsageError(`${which} ${ref}: no launches recorded yet (ledger ${missing} does not exist)`);
  return withLedger(flags, async (ledger) => {
    const rec = await ledger.resolve(ref);
    const change =
      which === 'note'
        ? // A note is the user's prose: a token pasted into it is not kept.
          { note: { text: redactText(value), at: Date.now() / 1000, user: thisUser() } }
        : flags.rm
          ? { untag: value }
          : { tag: value };
    const after = await ledger.annotate(rec.id, change);
    if (flags.json)
      out(`${JSON.stringify({ id: after.id, notes: after.notes ?? [], tags: after.tags ?? [] })}\n`);
    else if (which === 'note')
      out(
        `noted on launch ${after.id.slice(0, 8)} (${after.notes?.length ?? 0} note${after.notes?.length === 1 ? '' : 's'})\n`,
      );
    else
      out(`launch ${after.id.slice(0, 8)} tags: ${after.tags?.length ? after.tags.join(', ') : '(none)'}\n`);
    return 0;
  });
}
