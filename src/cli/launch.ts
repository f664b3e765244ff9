/**
 * `firedup launch -- <server command>`: runs the server with its output appended to a log, watches that
 * launch live (the `watch` view), holds the flags it was given against the config it logs, records it in
 * the ledger, and exits with the server's own status.
 */
import fs from 'node:fs';
import path from 'node:path';
import { intendedUrl, parseCommand } from '../core/intended.js';
import { redactArgv, selectEnv } from '../core/intended-env.js';
import type { AnalysisReport, LaunchReport } from '../core/report.js';
import { earlierRuns } from '../core/run-boundary.js';
import type { Verdict } from '../core/verdict.js';
import { discoverEngineInstall } from '../probes/engine-install.js';
import { defaultLedgerPath } from '../store/paths.js';
import type { IntendedLaunch } from '../store/types.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { FlagWatch } from './launch-check.js';
import { IntendedLaunchWriter, type ServerExit } from './launch-ledger.js';
import { checkSummary, exitLine, installLine, mismatchLine } from './launch-output.js';
import {
  checkCommand,
  countNewlines,
  defaultLogName,
  exitStatus,
  openLog,
  signalServer,
  startServer,
} from './launch-process.js';
import { type LiveEvent, LiveSession } from './live.js';
import { engineFlag } from './read.js';
import { urlFlag } from './status-live.js';
import { colorWanted, makeStyle } from './style.js';
import { eventLine, LiveView, renderBlock, stamp } from './view.js';
import { budgetScale } from './watch.js';
import { outputWidth } from './width.js';

const FLAGS: Record<string, FlagSpec> = {
  log: { type: 'string' },
  ledger: { type: 'string' },
  url: { type: 'string' },
  engine: { type: 'string' },
  json: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  'no-gpu': { type: 'boolean' },
  help: { type: 'boolean', alias: 'h' },
};

export const LAUNCH_USAGE = `firedup launch [--log FILE] [--ledger PATH] [--url U] [--json] -- <server command...>

  Runs the server with its stdout and stderr appended to FILE (like nohup CMD >> FILE 2>&1), watches the
  launch live as \`watch\` does, reports every flag whose logged value differs from the command line, records
  the launch (command, selected environment, engine version and checkout) in the ledger, and exits with the
  server's exit status (128+N when killed by signal N).

  --log FILE     where the output goes (default: ./firedup-<engine>-<yyyymmdd-hhmmss>.log); appended to
  --ledger PATH  the ledger (default: FIREDUP_LEDGER, else ~/.local/share/firedup/ledger.db)
  --url U        the server's HTTP address (default: from --host/--port on the command line)
  --engine NAME  read the log as this engine (default: from the command)
  --json         newline-delimited JSON events (watch's, plus started, intended, mismatch, config, signal, exit)
  --no-gpu       do not run nvidia-smi

  Ctrl-C or SIGTERM is passed on to the server's process group and firedup waits for it to exit; a second
  one kills the group (SIGKILL). If firedup itself dies, the server keeps running and logging, as with nohup.
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `p` at most `ms`, without a timer left behind to hold the process open. */
function settleWithin(p: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    const done = () => {
      clearTimeout(t);
      resolve();
    };
    p.then(done, done);
  });
}

export async function launchCommand(argv: string[]): Promise<number> {
  const { flags, positionals, rest } = parseArgs(argv, FLAGS, 'launch');
  if (flags.help) {
    process.stdout.write(LAUNCH_USAGE);
    return 0;
  }
  if (positionals.length)
    throw new UsageError(
      `launch: put the server command after --: firedup launch -- ${positionals.join(' ')} ...`,
    );
  if (rest.length === 0)
    throw new UsageError(
      'launch: name the server command after --: firedup launch -- llama-server -m model.gguf --port 8080',
    );
  const cwd = process.cwd();
  const env = process.env;
  const cmd = parseCommand(rest, engineFlag(flags.engine) ?? null);
  checkCommand(rest[0]!, env, cwd);
  const url = urlFlag(flags.url) ?? intendedUrl(cmd.flags);
  const scale = budgetScale();
  const ledgerPath = typeof flags.ledger === 'string' ? path.resolve(flags.ledger) : defaultLedgerPath();
  const logPath =
    typeof flags.log === 'string' ? flags.log : `./${defaultLogName(cmd.engine ?? cmd.program, new Date())}`;
  const json = Boolean(flags.json);
  const tty = !json && Boolean(process.stdout.isTTY);
  const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));

  const log = openLog(logPath);
  let child: ReturnType<typeof startServer>;
  try {
    child = startServer(rest, log.fd, cwd, env);
  } finally {
    // The child holds its own copy of the descriptor.
    fs.closeSync(log.fd);
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const spawnError = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    child.once('spawn', () => resolve(null));
    child.once('error', (e) => resolve(e));
  });
  if (spawnError) {
    const code = spawnError.code === 'ENOENT' ? 127 : 126;
    throw new UsageError(`launch: ${rest[0]}: cannot run (${spawnError.code ?? spawnError.message})`, code);
  }
  const pid = child.pid!;

  const intended: IntendedLaunch = {
    argv: redactArgv(rest),
    cwd,
    env: selectEnv(env),
    engineVersion: null,
    git: null,
    flags: cmd.flags,
    mismatches: [],
    pid,
    startedAt: Date.now() / 1000,
  };
  const out = (line: string) => {
    if (view && session.verdict) view.log(line, block(session.verdict));
    else process.stdout.write(`${line}\n`);
  };
  const emit = (obj: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(obj)}\n`);
  const warn = (msg: string) => process.stderr.write(`firedup: ${msg}\n`);
  const recorder = new IntendedLaunchWriter(
    ledgerPath,
    { path: log.realPath, fileId: log.fileId, pid },
    warn,
  );

  // The log's earlier runs are history: only this server's launches are watched, checked and recorded.
  const lineAtFrom = new Map<number, number>();
  const lineAt = (l: LaunchReport): number => {
    let n = lineAtFrom.get(l.startOffset);
    if (n === undefined) {
      n = l.startLine + countNewlines(log.realPath, l.startOffset, log.fromOffset);
      lineAtFrom.set(l.startOffset, n);
    }
    return n;
  };
  const earlier = (ls: LaunchReport[]) => earlierRuns(ls, log.fromOffset, lineAt);
  const session = new LiveSession({
    log: logPath,
    url,
    pid,
    engine: cmd.engine ?? undefined,
    gpu: flags['no-gpu'] ? false : undefined,
    budgetScale: scale,
    earlier,
  });
  const view = tty ? new LiveView(process.stdout) : null;
  const width = () => outputWidth() ?? 100;
  const ours = (r: AnalysisReport | null = session.currentReport): LaunchReport[] =>
    r ? r.launches.slice(earlier(r.launches)) : [];
  // Before the server's first launch line the session says "waiting" about the file (empty, or earlier runs):
  // here the reason is known.
  const shown = (v: Verdict): Verdict =>
    v.state === 'waiting' && ours().length === 0
      ? { ...v, why: 'waiting for the server to write its first line' }
      : v;
  const block = (v: Verdict) => {
    const r = session.currentReport;
    const lines = renderBlock(
      logPath,
      shown(v),
      r && { ...r, launches: ours(r) },
      session.observations.gpu,
      st,
      width(),
    );
    const n = intended.mismatches.length;
    lines.push(
      st.dim(
        `  server pid ${pid} · ${n ? st.yellow(`${n} flag${n > 1 ? 's' : ''} differ from the command line`) : 'flags as asked'}`,
      ),
    );
    return lines;
  };

  if (json)
    emit({
      type: 'started',
      pid,
      log: log.realPath,
      offset: log.size,
      argv: intended.argv,
      engine: cmd.engine,
      url: url ?? null,
    });
  else
    out(
      stamp(
        `server pid ${pid}: ${intended.argv.join(' ')}\n${' '.repeat(9)}output appended to ${logPath}${log.size ? ` (from byte ${log.size})` : ''}`,
        st,
      ),
    );

  const stopDiscovery = new AbortController();
  const discovery = discoverEngineInstall(cmd, { cwd, env, signal: stopDiscovery.signal }).then(
    (i) => {
      if (stopDiscovery.signal.aborted) return;
      intended.engineVersion = i.version;
      intended.git = i.git;
      if (json) emit({ type: 'intended', ...intended });
      else if (i.version || i.git) out(installLine(i, st));
      recorder.record(ours(), intended, Date.now() / 1000);
    },
    () => undefined,
  );

  const flagWatch = new FlagWatch(cmd.engine, cmd.flags);
  const check = (exited: boolean) => {
    const l = ours().at(-1);
    const news = l && flagWatch.update(l, exited);
    if (!l || !news) return;
    intended.mismatches = flagWatch.mismatches;
    for (const m of news.fresh) {
      if (json) emit({ type: 'mismatch', ...m });
      else out(mismatchLine(m, st));
    }
    const c = news.summary;
    if (c && json)
      emit({ type: 'config', checks: c.checks, unobservable: c.unobservable, fullDump: c.fullDump });
    else if (c) out(checkSummary(c, l.engine ?? cmd.engine, st));
  };

  // This server's launches are announced when first counted as its own, before their phases (the session
  // announces every launch of the file once, possibly while it still looked like an earlier run's).
  let announced = 0;
  const announce = () => {
    const r = session.currentReport;
    const mine = ours(r);
    for (const l of mine.slice(announced)) {
      const e: LiveEvent = {
        type: 'launch',
        launch: r!.launches.indexOf(l) + 1,
        line: l.startLine,
        time: l.startTime,
      };
      if (json) emit(e);
      else out(eventLine(e, st)!);
    }
    announced = Math.max(announced, mine.length);
  };
  session.on('event', (e: LiveEvent) => {
    if (e.type === 'launch') return;
    // Phases of the runs already in the log are history, not this server.
    if (e.type === 'phase' && e.launch <= earlier(session.currentReport?.launches ?? [])) return;
    announce();
    if (e.type === 'verdict') e = { type: 'verdict', verdict: shown(e.verdict) };
    if (json) {
      emit(e.type === 'verdict' ? { type: 'verdict', ...e.verdict } : e);
      return;
    }
    const line = eventLine(e, st);
    if (line !== null) out(line);
  });
  session.on('tick', (v: Verdict) => {
    announce();
    if (view) view.draw(block(v));
    check(false);
    recorder.record(ours(), intended, Date.now() / 1000);
  });

  // Ctrl-C and SIGTERM go to the server's group; a second one kills the group.
  let stops = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    stops++;
    const s: NodeJS.Signals = stops === 1 ? sig : 'SIGKILL';
    signalServer(pid, s);
    if (json) emit({ type: 'signal', signal: s, pid });
    else
      out(
        stamp(
          `sent ${s} to the server (pid ${pid}, its process group)${stops === 1 ? '; again to kill it' : ''}`,
          st,
        ),
      );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  session.start();

  const { code, signal } = await exited;
  // Read what the server wrote last before the final verdict.
  for (let i = 0; i < 40; i++) {
    session.tick();
    const size = fs.statSync(logPath, { throwIfNoEntry: false })?.size ?? 0;
    if ((session.currentReport?.bytes ?? 0) >= size) break;
    await sleep(50);
  }
  const v = session.tick();
  session.stop();
  // The version and checkout belong in the final record; a discovery still stuck after 2 s is given up.
  await settleWithin(discovery, 2000);
  stopDiscovery.abort();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  check(true);
  const exit: ServerExit = { code, signal, stopped: stops > 0 };
  if (ours().length === 0)
    warn(`${logPath} shows no launch of this server (nothing it printed starts one): nothing recorded`);
  recorder.record(ours(), intended, Date.now() / 1000, exit);
  recorder.close();
  const status = exitStatus(code, signal);
  if (json) emit({ type: 'exit', code, signal, status, verdict: v });
  else {
    if (view) {
      view.draw(block(v));
      view.close();
    }
    process.stdout.write(`${exitLine(status, code, signal, v, st)}\n`);
  }
  return status;
}
