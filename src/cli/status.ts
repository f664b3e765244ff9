/** `firedup status <log>` and `firedup runs <log>`: one read of a log (recorded in the ledger), reported. */

import { once } from 'node:events';
import { explainNoLaunch, isContainer, isRemote } from '../app/read-log.js';
import { keepVerdict, logIdentity, recordedLive } from '../app/recording.js';
import { statusVerdict } from '../app/status-verdict.js';
import { diffConfig } from '../core/campaign/diff.js';
import type { LaunchRecord } from '../core/campaign/records.js';
import { explainLatest } from '../core/reading/explain-report.js';
import type { LaunchReport } from '../core/reading/report.js';
import type { ContainerObservation } from '../core/verdict/container.js';
import type { ReadResult } from '../sources/file.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { formatRuns, formatStatus, runLines, runsHeader, whyAfterState } from './format.js';
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
import { fitReport } from './width.js';

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

type ContainerRead = { container?: ContainerObservation };

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

export const STATUS_FLAGS: Record<string, FlagSpec> = {
  ...COMMON,
  url: { type: 'string' },
  pid: { type: 'string' },
  explain: { type: 'boolean' },
  'no-probe': { type: 'boolean' },
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
  if (
    lines !== null &&
    (target === '-' || isRemote(target) || isContainer(target) || flags.json || flags.explain)
  )
    throw new UsageError(
      "status: --lines shows a local log file's own lines; leave out -, host:path, docker://, --json and --explain",
    );
  if (flags.explain) return explain(target, flags);
  // --url and --pid probe this machine; over ssh they would describe the wrong host.
  if (isRemote(target) && (flags.url !== undefined || flags.pid !== undefined))
    throw new UsageError('status: --url and --pid are not supported for a remote log yet');
  const probes = {
    url: urlFlag(flags.url),
    pid: pidFlag(flags.pid),
    // As `wait` does: a local log's open launch is checked against its process, unless --no-probe.
    findProcess: !flags['no-probe'] && target !== '-' && !isRemote(target) && !isContainer(target),
  };
  const { res, live, count, shown } = await withRecording(
    flags,
    async (ledger) => {
      const res = await readLogForCli(target, { engine: engineFlag(flags.engine) }, sshFlags(flags), ledger);
      // The launch before the last, and their number, when the ledger keeps the closed ones (app/ingest.ts).
      const { report, earlier } = res;
      const count = (earlier?.count ?? 0) + report.launches.length;
      const shown =
        earlier && report.launches.length === 1
          ? { ...report, launches: [...(await earlier.last(1)).map((r) => r.report), ...report.launches] }
          : report;
      if (!report.launches.length) return { res, live: null, count, shown };
      const recorded = await recordedLive(
        ledger,
        target,
        report,
        (res as { records?: LaunchRecord[] }).records,
      );
      // A container's own state (docker inspect) is evidence beside its log (ingest-docker.ts).
      const live = await statusVerdict(
        report,
        res.mtimeMs,
        { ...probes, recorded },
        (res as ContainerRead).container,
      );
      // The ledger lists the launch as this verdict calls it (stalled, dead), not in progress forever.
      await keepVerdict(ledger, target, report, (res as { records?: LaunchRecord[] }).records, live);
      return { res, live, count, shown };
    },
    { readAgain: true },
  );
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
    const prev = shown.launches.length > 1 ? shown.launches[shown.launches.length - 2]! : null;
    const changes = prev ? diffConfig(prev.config, last.config) : [];
    out(
      `${JSON.stringify({ ...last, engine: last.engine ?? report.engine, launchCount: count, changes, live })}\n`,
    );
  } else {
    const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
    out(formatStatus(target === '-' ? '(stdin)' : target, shown, st, live, count));
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
  // A container's state can end a launch its log leaves open (an OOM kill, a stop): the verdict decides.
  if (live?.state === 'crashed') return 2;
  if (live?.state === 'exited') return 5;
  return STATUS_EXIT[last.outcome];
}

/**
 * `status --explain`: the latest launch with the lines behind each conclusion. Always a read from the
 * start without the ledger: the unrecognised lines are not part of a checkpoint, and a read that explains
 * records nothing.
 */
async function explain(target: string, flags: Record<string, unknown>): Promise<number> {
  const res = await readLogForCli(
    target,
    { engine: engineFlag(flags.engine), explain: true },
    sshFlags(flags),
    null,
  );
  const x = explainLatest(res.analyzer);
  if (!x) throw new UsageError(explainNoLaunch(target, res));
  // The same verdict as plain `status`: the file's age and the process, found as `wait` finds it.
  // The ledger is only read here (what an earlier look kept: its pid, a dead it saw), never written.
  const live = res.report.launches.length
    ? await withRecording(flags, async (ledger) =>
        statusVerdict(res.report, res.mtimeMs, {
          url: urlFlag(flags.url as string | undefined),
          pid: pidFlag(flags.pid as string | undefined),
          findProcess: !flags['no-probe'] && target !== '-' && !isRemote(target) && !isContainer(target),
          recorded: await recordedLive(ledger, target, res.report, undefined),
        }),
      )
    : null;
  if (flags.json) out(`${JSON.stringify(x)}\n`);
  else {
    const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
    out(formatExplain(target === '-' ? '(stdin)' : target, x, st));
    if (live && (live.state === 'stalled' || live.state === 'dead'))
      out(`\nnow: ${live.state} — ${whyAfterState(live)}\n`);
  }
  if (live?.state === 'stalled') return 4;
  if (live?.state === 'dead') return 5;
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
    ? (r: LaunchReport, text: string | null) =>
        settled.add((settled.count ? ',' : '') + (text ?? JSON.stringify(r)))
    : undefined;
  // Written while the ledger is open: launches it keeps are read back from it as they are written.
  return withRecording(flags, async (ledger) => {
    const res = await readLogForCli(
      target,
      { engine: engineFlag(flags.engine), onSettled },
      sshFlags(flags),
      ledger,
    );
    return await writeRuns(target, res, flags, settled);
  });
}

async function writeRuns(
  target: string,
  res: ReadResult,
  flags: Record<string, unknown>,
  settled: TextSpool,
): Promise<number> {
  const { report } = res;
  const earlier = res.earlier ?? null;
  if (flags.json) {
    await writeRunsJson(report, settled, earlier);
    return 0;
  }
  if (report.launches.length === 0) {
    process.stderr.write(`firedup: ${explainNoLaunch(target, res)}\n`);
    return 0;
  }
  const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
  const file = target === '-' ? '(stdin)' : target;
  const latest = report.launches[report.launches.length - 1];
  if (!earlier) {
    out(formatRuns(file, report, st));
    if (latest?.nodes) out(formatNodes(latest.nodes, st));
    return 0;
  }
  // The launches a ledger keeps come back a page at a time: the listing is written as it is made.
  await write(
    `${fitReport([runsHeader(file, report, earlier.count + report.launches.length, st)]).join('\n')}\n`,
  );
  let i = 0;
  let prev: LaunchReport | null = null;
  const lines = async (ls: LaunchReport[]): Promise<void> => {
    const text: string[] = [];
    for (const l of ls) {
      text.push(...runLines(l, i++, prev, st));
      prev = l;
    }
    if (text.length) await write(`${fitReport(text).join('\n')}\n`);
  };
  for await (const page of earlier.reportTexts()) await lines(page.map((r) => JSON.parse(r)));
  await lines(report.launches);
  if (latest?.nodes) await write(formatNodes(latest.nodes, st));
  return 0;
}

/** Writes to stdout, waiting for a slow reader rather than queueing a long listing in memory. */
async function write(text: string): Promise<void> {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}
