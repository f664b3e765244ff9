/** `firedup status <log>` and `firedup runs <log>`: one read of a log (recorded in the ledger), reported. */

import { explainNoLaunch, isRemote } from '../app/read-log.js';
import { keepVerdict, logIdentity } from '../app/recording.js';
import { statusVerdict } from '../app/status-verdict.js';
import { diffConfig } from '../core/diff.js';
import { explainLatest } from '../core/explain-report.js';
import type { LaunchRecord } from '../core/records.js';
import type { LaunchReport } from '../core/report.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { formatRuns, formatStatus } from './format.js';
import { formatExplain } from './format-explain.js';
import { formatNodes, liveNodes } from './format-nodes.js';
import { helpText } from './help.js';
import { formatLines, takeLinesFlag } from './log-lines.js';
import { engineFlag, readLogForCli, sshFlags } from './read.js';
import { RECORD_FLAGS, withRecording } from './recording.js';
import { TextSpool } from './spool.js';
import { STATUS_EXIT, writeRunsJson } from './status-exit.js';
import { pidFlag, urlFlag } from './status-live.js';
import { multiRuns, multiStatus, NODE_FLAGS, nodeFlag } from './status-nodes.js';
import { writeOut } from './stdout.js';
import { colorWanted, makeStyle } from './style.js';

export const COMMON: Record<string, FlagSpec> = {
  json: { type: 'boolean' },
  engine: { type: 'string' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', alias: 'h' },
  'ssh-config': { type: 'string' },
  'ssh-option': { type: 'string', multi: true },
  ...NODE_FLAGS,
  ...RECORD_FLAGS,
};

function out(s: string): void {
  writeOut(s);
}

function oneLog(positionals: string[], cmd: string): string {
  if (positionals.length === 0)
    throw new UsageError(`${cmd}: name a log file (or - for stdin): firedup ${cmd} server.log`);
  if (positionals.length > 1)
    throw new UsageError(`${cmd}: one log at a time (got ${positionals.length}: ${positionals.join(' ')})`);
  return positionals[0]!;
}

const STATUS_FLAGS: Record<string, FlagSpec> = {
  ...COMMON,
  url: { type: 'string' },
  pid: { type: 'string' },
  explain: { type: 'boolean' },
};

export async function status(argv0: string[]): Promise<number> {
  const { argv, lines } = takeLinesFlag(argv0, 'status');
  const { flags, positionals } = parseArgs(argv, STATUS_FLAGS, 'status');
  if (flags.help) {
    out(await helpText());
    return 0;
  }
  const nodes = nodeFlag(flags, positionals, 'status');
  if (nodes) {
    if (lines !== null || flags.explain)
      throw new UsageError('status: --lines and --explain read one log; leave them out with --node');
    return multiStatus(nodes, flags);
  }
  const target = oneLog(positionals, 'status');
  if (lines !== null && (target === '-' || isRemote(target) || flags.json || flags.explain))
    throw new UsageError(
      "status: --lines shows a local log file's own lines; leave out -, host:path, --json and --explain",
    );
  if (flags.explain) return explain(target, flags);
  // --url and --pid probe this machine; over ssh they would describe the wrong host.
  if (isRemote(target) && (flags.url !== undefined || flags.pid !== undefined))
    throw new UsageError('status: --url and --pid are not supported for a remote log yet');
  const probes = { url: urlFlag(flags.url), pid: pidFlag(flags.pid) };
  const { res, live } = await withRecording(flags, async (ledger) => {
    const res = await readLogForCli(target, { engine: engineFlag(flags.engine) }, sshFlags(flags), ledger);
    if (!res.report.launches.length) return { res, live: null };
    const live = await statusVerdict(res.report, res.mtimeMs, probes);
    // The ledger lists the launch as this verdict calls it (stalled, dead), not in progress forever.
    await keepVerdict(ledger, target, res.report, (res as { records?: LaunchRecord[] }).records, live);
    return { res, live };
  });
  const { report } = res;
  const last = report.launches[report.launches.length - 1];
  if (!last) {
    if (flags.json)
      out(
        `${JSON.stringify({ engine: report.engine, outcome: 'unknown', phase: null, failure: null, progress: null, launches: 0 })}\n`,
      );
    throw new UsageError(explainNoLaunch(target, res));
  }
  if (flags.json) {
    const prev = report.launches.length > 1 ? report.launches[report.launches.length - 2]! : null;
    const changes = prev ? diffConfig(prev.config, last.config) : [];
    out(
      `${JSON.stringify({ ...last, engine: last.engine ?? report.engine, launchCount: report.launches.length, changes, live })}\n`,
    );
  } else {
    const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
    out(formatStatus(target === '-' ? '(stdin)' : target, report, st, live));
    // One log that carries several nodes' lines (Ray): its nodes, as `--node` prints them.
    if (last.nodes) out(formatNodes(last.nodes, st, liveNodes(live)));
    if (lines !== null) {
      const place = {
        host: 'localhost',
        path: logIdentity(target)!.path,
        startLine: last.startLine,
        startOffset: last.startOffset,
      };
      out(`\n${formatLines(last, [place], lines, st, live?.evidence ?? [])}`);
    }
  }
  if (live?.state === 'stalled') return 4;
  if (live?.state === 'dead') return 5;
  return STATUS_EXIT[last.outcome];
}

/**
 * `status --explain`: the latest launch with the lines behind each conclusion. Always a read from the
 * start without the ledger: the unrecognised lines are not part of a checkpoint, and a read that explains
 * records nothing.
 */
async function explain(target: string, flags: Record<string, unknown>): Promise<number> {
  if (flags.url !== undefined || flags.pid !== undefined)
    throw new UsageError('status: --explain reads the log only; leave out --url and --pid');
  const res = await readLogForCli(
    target,
    { engine: engineFlag(flags.engine), explain: true },
    sshFlags(flags),
    null,
  );
  const x = explainLatest(res.analyzer);
  if (!x) throw new UsageError(explainNoLaunch(target, res));
  if (flags.json) out(`${JSON.stringify(x)}\n`);
  else {
    const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
    out(formatExplain(target === '-' ? '(stdin)' : target, x, st));
  }
  return STATUS_EXIT[x.outcome];
}

export async function runs(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, COMMON, 'runs');
  if (flags.help) {
    out(await helpText());
    return 0;
  }
  const nodes = nodeFlag(flags, positionals, 'runs');
  if (nodes) return multiRuns(nodes, flags);
  const target = oneLog(positionals, 'runs');
  const settled = new TextSpool();
  // launches are written as they close, unless a ledger records them (it needs the whole report)
  const onSettled = flags.json
    ? (r: LaunchReport) => settled.add((settled.count ? ',' : '') + JSON.stringify(r))
    : undefined;
  const res = await withRecording(flags, (ledger) =>
    readLogForCli(target, { engine: engineFlag(flags.engine), onSettled }, sshFlags(flags), ledger),
  );
  const { report } = res;
  if (flags.json) {
    await writeRunsJson(report, settled);
    return 0;
  }
  if (report.launches.length === 0) {
    process.stderr.write(`firedup: ${explainNoLaunch(target, res)}\n`);
    return 0;
  }
  const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
  out(formatRuns(target === '-' ? '(stdin)' : target, report, st));
  const latest = report.launches[report.launches.length - 1];
  if (latest?.nodes) out(formatNodes(latest.nodes, st));
  return 0;
}
