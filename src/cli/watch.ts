/** `firedup watch` and `firedup wait`: a live session rendered, or waited on. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type LiveEvent, LiveSession } from '../app/live.js';
import { MultiNodeLive, type NodeEvent } from '../app/multinode-live.js';
import { isContainer, isRemote } from '../app/read-log.js';
import { LiveRecording, logIdentity, machineOf, thisMachine } from '../app/recording.js';
import { remoteLive } from '../app/remote-live.js';
import { PHASES } from '../core/base/types.js';
import type { Verdict } from '../core/verdict/verdict.js';
import { waitExitCode } from '../core/verdict/verdict.js';
import { describeFsError, localKind, NOT_REGULAR } from '../sources/file.js';

import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { fmtDuration, whyAfterState, withoutFailure } from './format.js';
import { engineFlag, sshFlags } from './read.js';
import { RECORD_FLAGS, recordingLedger } from './recording.js';
import { pidFlag, urlFlag } from './status-live.js';
import { NODE_FLAGS, nodeFlag } from './status-nodes.js';
import { colorWanted, makeStyle } from './style.js';
import { eventLine, LiveView, renderBlock, stateBadge } from './view.js';
import { nodesSession, recordNodes } from './watch-nodes.js';
import { outputWidth, wrapLine } from './width.js';

export const FLAGS: Record<string, FlagSpec> = {
  url: { type: 'string' },
  pid: { type: 'string' },
  engine: { type: 'string' },
  json: { type: 'boolean', alias: 'j' },
  'no-color': { type: 'boolean' },
  'no-gpu': { type: 'boolean' },
  'on-ready': { type: 'string' },
  'on-fail': { type: 'string' },
  timeout: { type: 'string' },
  for: { type: 'string' },
  next: { type: 'boolean' },
  quiet: { type: 'boolean', alias: 'q' },
  'ssh-option': { type: 'string', multi: true },
  'ssh-config': { type: 'string' },
  ...NODE_FLAGS,
  help: { type: 'boolean', alias: 'h' },
  ...RECORD_FLAGS,
};

const USAGE = `firedup watch <log> [--url U] [--pid P] [--json] [--on-ready CMD] [--on-fail CMD]
firedup wait <log> [--for ready|serving|loaded] [--next] [--timeout 60m] [-q] [--url U] [--pid P] [--json]
firedup watch|wait --node LOG --node LOG ...   one launch over several nodes (local paths or host:path)

  watch   a live view of the launch: phase, progress and ETA, GPUs, evidence; ends with the final verdict
          (q or Ctrl-C leaves it on a terminal)
  wait    judges the latest launch in the log at once and blocks until it is ready (exit 0), crashed (2),
          stalled (4), exited or dead (5), or the timeout passed (6):
          firedup wait server.log && python -m sglang.bench_serving ...

  --for S        what wait waits for: ready (default; serving or idle count), serving (a batch was
                 served), loaded (the weights are loaded)
  --next         wait for the next launch: launches already over in the log are history (relaunch with >>)
  -q, --quiet    print only the final verdict, on one line (stdout)

  --url U        the server's HTTP address (default: host and port from the logged config); for a
                 remote log, as that host sees it (probed through an ssh port forward)
  --pid P        the server's process (default: the one that listens on the logged port, whose pid the
                 log names, or whose command line carries the launch's model and port; never a guess);
                 for a remote log, a pid on that host (read from its /proc over ssh)
  --json         newline-delimited JSON events: launch, phase, progress, verdict; the last line is
                 always {"type":"exit","code":N, ...the final verdict}
  --on-ready CMD run CMD (sh -c) when the server becomes ready; FIREDUP_* variables describe the verdict
  --on-fail CMD  run CMD when it crashes, stalls or dies
  --no-gpu       do not run nvidia-smi
  --timeout T    stop after T (90s, 30m, 2h; wait's default: 60m, watch's: none) with exit code 6
  --ledger PATH  record the launches in this ledger (default: FIREDUP_LEDGER, else
                 ~/.local/share/firedup/ledger.db); earlier launches like this one set the budgets
  --no-ledger    record nothing
  --node LOG     a node's log of a multi-node launch, once per node: one verdict for the launch (ready when
                 the head serves; the node that died first or holds the others back is named)
  --config F --target NAME   the nodes of a [[target]] with nodes = [...] in firedup.toml
`;

/** A missing log is fine (the launch has not begun); a directory or an unreadable file is a mistake. */
/** The nearest missing directory above `log` (the first that does not exist), or null when its own exists. */
export function missingDir(log: string): string | null {
  let dir = path.dirname(path.resolve(log));
  let missing: string | null = null;
  for (;;) {
    try {
      if (fs.statSync(dir).isDirectory()) return missing;
      return dir;
    } catch {
      missing = dir;
      const up = path.dirname(dir);
      if (up === dir) return missing;
      dir = up;
    }
  }
}

export function checkFollowable(log: string): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(log);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      // A log not there yet is waited for (said, with the time so far), but only where it can appear: in a
      // directory that does not exist no server is writing, and waiting would hang with nothing to show.
      const dir = missingDir(log);
      if (dir)
        throw new UsageError(
          `${log}: the directory ${dir} does not exist, so the log cannot appear there (check the path)`,
        );
      return;
    }
    throw new UsageError(describeFsError(log, err));
  }
  if (st.isDirectory())
    throw new UsageError(describeFsError(log, Object.assign(new Error('dir'), { code: 'EISDIR' })));
  // Following means reopening and re-reading by offset: a FIFO or a device has neither (and opening a FIFO
  // with no writer would block).
  if (st.isSocket())
    throw new UsageError(
      describeFsError(log, Object.assign(new Error('socket'), { code: NOT_REGULAR.socket })),
    );
  if (st.isFIFO())
    throw new UsageError(
      `${log} is a FIFO, not a regular file: following reads by offset; pipe it instead: cat ${log} | firedup watch -`,
    );
  if (!st.isFile()) throw new UsageError(`${log}: a device, not a log file (name the server's log file)`);
  if (localKind(log) === 'pseudo')
    throw new UsageError(
      `${log}: a kernel pseudo-file (/proc, /sys), not a log file (name the server's log file)`,
    );
  try {
    fs.accessSync(log, fs.constants.R_OK);
  } catch (err) {
    throw new UsageError(describeFsError(log, err));
  }
}

export function parseDuration(s: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(s.trim());
  if (!m) throw new UsageError(`${flag} ${s}: not a duration (use 90s, 30m or 2h)`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return unit === 'ms' ? n / 1000 : unit === 's' ? n : unit === 'm' ? n * 60 : n * 3600;
}

/** FIREDUP_BUDGET_SCALE shortens every silence budget: for watching replays sped up with `replay --speed`. */
export function budgetScale(): number | undefined {
  const v = process.env.FIREDUP_BUDGET_SCALE;
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!(n > 0)) throw new UsageError(`FIREDUP_BUDGET_SCALE=${v}: not a positive number`);
  return n;
}

/**
 * Where the hook's launch is, for a script that runs anywhere: the log's absolute path (or host:path as given
 * for a remote one) and the machine it is on.
 */
function hookPlace(log: string): { log: string; host: string } {
  const id = log === '-' ? null : logIdentity(log);
  if (!id) return { log, host: thisMachine() };
  return { log: id.local ? path.resolve(log) : log, host: machineOf(id.host) };
}

function hookEnv(v: Verdict, log: string): NodeJS.ProcessEnv {
  const place = hookPlace(log);
  return {
    ...process.env,
    FIREDUP_LOG: place.log,
    FIREDUP_HOST: place.host,
    FIREDUP_STATE: v.state,
    FIREDUP_PHASE: v.phase ?? '',
    FIREDUP_WHY: v.why,
    FIREDUP_ENGINE: v.engine ?? '',
    FIREDUP_LAUNCH: String(v.launch ?? ''),
    FIREDUP_FAILURE_CLASS: v.failure?.class ?? '',
    FIREDUP_EVIDENCE_LINE: String(v.failure?.line ?? v.evidence.find((e) => e.line)?.line ?? ''),
    FIREDUP_THROUGHPUT: v.throughput === null ? '' : String(v.throughput),
  };
}

function runHook(cmd: string, v: Verdict, log: string): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', cmd], { stdio: ['ignore', 'inherit', 'inherit'], env: hookEnv(v, log) });
    child.on('error', () => resolve());
    child.on('exit', () => resolve());
  });
}

/** What `wait --for` accepts; each names the verdicts that count as arrived. */
const GOALS = ['ready', 'serving', 'loaded'] as const;
type Goal = (typeof GOALS)[number];
/** `wait` gives up after an hour unless told otherwise: a script must never hang forever. */
export const WAIT_TIMEOUT_DEFAULT = 3600;
/** Phases reached once the weights are in GPU memory. */
const LOADED = new Set<string>(PHASES.slice(PHASES.indexOf('weights_loaded')));

function goalFlag(v: unknown): Goal {
  if (v === undefined) return 'ready';
  if ((GOALS as readonly unknown[]).includes(v)) return v as Goal;
  throw new UsageError(`wait: --for ${String(v)}: one of ${GOALS.join(', ')}`);
}

function reached(v: Verdict, goal: Goal): boolean {
  const up = v.state === 'ready' || v.state === 'serving' || v.state === 'idle';
  if (goal === 'ready') return up;
  if (goal === 'serving') return v.state === 'serving' || v.state === 'idle';
  return (
    up ||
    (v.phase !== null && LOADED.has(v.phase) && !['stalled', 'dead', 'crashed', 'exited'].includes(v.state))
  );
}

/**
 * `q` (or Ctrl-C) on the terminal leaves `watch`. Raw mode is undone on every way out: the returned
 * function, and process exit as a backstop.
 */
/**
 * Whether this process is in its terminal's foreground process group. A background job (`cmd &`, or under
 * `timeout` without --foreground, which gives its child a process group of its own) that sets raw mode or reads
 * the terminal is stopped by SIGTTOU/SIGTIN and would hang there. Linux says so in /proc/self/stat (pgrp is
 * field 5, the terminal's foreground group tpgid field 8); elsewhere assume the foreground.
 */
export function inForeground(): boolean {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pgrp = Number(f[2]);
    const tpgid = Number(f[5]);
    return !(tpgid > 0 && pgrp > 0 && tpgid !== pgrp);
  } catch {
    return true;
  }
}

export function quitKeys(onKey: (code: number) => void): () => void {
  const input = process.stdin;
  // In the background, keys belong to the foreground job; Ctrl-C and signals still end the watch.
  if (!input.isTTY || !inForeground()) return () => {};
  const restore = () => {
    try {
      input.setRawMode(false);
    } catch {
      // The terminal is gone already.
    }
  };
  input.setRawMode(true);
  input.resume();
  const onData = (b: Buffer) => {
    const s = b.toString('utf8');
    if (s.includes('\x03')) onKey(130);
    else if (/q/i.test(s)) onKey(0);
  };
  input.on('data', onData);
  process.once('exit', restore);
  return () => {
    input.off('data', onData);
    restore();
    input.pause();
    process.off('exit', restore);
  };
}

interface Run {
  mode: 'watch' | 'wait';
  argv: string[];
}

async function live({ mode, argv }: Run): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS, mode);
  if (flags.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const nodes = nodeFlag(flags, positionals, mode) ?? [];
  if (!nodes.length && positionals.length !== 1)
    throw new UsageError(`${mode}: name one log file: firedup ${mode} server.log`);
  const log = nodes.length ? nodes.join(',') : positionals[0]!;
  const timeout =
    typeof flags.timeout === 'string'
      ? parseDuration(flags.timeout, '--timeout')
      : mode === 'wait'
        ? WAIT_TIMEOUT_DEFAULT
        : null;
  if (mode === 'watch' && (flags.for !== undefined || flags.next))
    throw new UsageError('watch: --for and --next are wait options (firedup wait --help)');
  const goal = goalFlag(flags.for);
  const quiet = Boolean(flags.quiet);
  const shared = {
    engine: engineFlag(flags.engine),
    budgetScale: budgetScale(),
    skipEnded: mode === 'wait' && Boolean(flags.next),
    timeout,
  };
  let session: LiveSession | MultiNodeLive;
  let rec: LiveRecording | null = null;
  let ledger: Awaited<ReturnType<typeof recordingLedger>> = null;
  // The joined launch's writes, one after another (a Postgres ledger answers later); finish waits for them.
  let nodesWritten: Promise<void> = Promise.resolve();
  const keepNodes = (live: MultiNodeLive, v: Verdict) => {
    nodesWritten = nodesWritten.then(() => recordNodes(ledger, live, v)).catch(() => {});
  };
  if (nodes.length) {
    session = await nodesSession(
      nodes,
      flags,
      checkFollowable,
      { ...shared, gpu: flags['no-gpu'] ? false : undefined },
      mode,
    );
    ledger = await recordingLedger(flags);
  } else {
    const remote = isRemote(log);
    const container = isContainer(log);
    if (log !== '-' && !remote && !container) checkFollowable(log);
    const ssh = remote
      ? await remoteLive(log, sshFlags(flags), Boolean(flags['no-gpu']))
      : container
        ? {
            opts: await (await import('../app/docker-live.js')).dockerLive(log, Boolean(flags['no-gpu']), {
              ssh: sshFlags(flags),
            }),
          }
        : undefined;
    const where = logIdentity(log);
    ledger = where ? await recordingLedger(flags) : null;
    rec = ledger && where ? new LiveRecording(ledger, where) : null;
    const one = new LiveSession({
      expect: rec?.expect,
      ...ssh?.opts,
      ...shared,
      log,
      url: urlFlag(flags.url),
      pid: pidFlag(flags.pid),
      gpu: flags['no-gpu'] ? false : ssh?.opts.gpu,
    });
    rec?.readingFrom(() => one.readFile());
    session = one;
  }
  const multi = session instanceof MultiNodeLive ? session : null;
  const json = Boolean(flags.json);
  const err = process.stderr;
  const tty = mode === 'watch' && !json && Boolean(process.stdout.isTTY);
  const st = makeStyle(colorWanted(mode === 'watch' ? process.stdout : err, Boolean(flags['no-color'])));
  const view = tty ? new LiveView(process.stdout) : null;
  const width = () => outputWidth() ?? 100;
  const started = Date.now() / 1000;
  let readyFired = false;
  let lastRecorded: Verdict | null = null;
  let failFired = false;
  const hooks: Promise<void>[] = [];
  /** The why of the last verdict line printed: the closing line does not print a long failure again. */
  let lastSaid: string | null = null;

  const block = (v: Verdict) =>
    renderBlock(log, v, session.currentReport, session.observations.gpu, st, width());
  session.on('event', (e: LiveEvent) => {
    if (json) {
      process.stdout.write(
        `${JSON.stringify(e.type === 'verdict' ? { type: 'verdict', ...e.verdict } : e)}\n`,
      );
      return;
    }
    if (quiet) return;
    if (e.type === 'verdict') lastSaid = e.verdict.why;
    const own = eventLine(e, st);
    if (own === null) return;
    const node = (e as NodeEvent).node;
    const line = node ? `[${node}] ${own}` : own;
    if (view && session.verdict) view.log(line, block(session.verdict));
    else {
      // A line per event, wrapped at words under the text (past the clock) when the width is known.
      const w = outputWidth(mode === 'watch' ? process.stdout : err);
      const text =
        w === null
          ? line
          : line
              .split('\n')
              .flatMap((l) => wrapLine(l, w, ' '.repeat(9)))
              .join('\n');
      (mode === 'watch' ? process.stdout : err).write(`${text}\n`);
    }
  });

  return await new Promise<number>((resolve) => {
    let done = false;
    let unkeys = () => {};
    const finish = async (code: number, v: Verdict) => {
      if (done) return;
      done = true;
      unkeys();
      session.stop();
      void rec?.observe(session.currentReport, session.observations.process?.pid ?? null, { force: true });
      void rec?.verdict(v, session.currentReport);
      await rec?.flush();
      if (multi) keepNodes(multi, v);
      await nodesWritten;
      await ledger?.close();
      await Promise.all(hooks);
      if (view) {
        view.draw(block(v));
        view.close();
      } else if (json) {
        // Scripts read the last line: it is always there, and it says how the watch ended.
        process.stdout.write(`${JSON.stringify({ type: 'exit', code, ...v })}\n`);
      } else if (quiet) {
        process.stdout.write(
          `${v.state}${v.phase && v.phase !== v.state ? ` (${v.phase})` : ''}: ${whyAfterState(v)}\n`,
        );
      } else {
        const out = mode === 'watch' ? process.stdout : err;
        // A timed-out verdict's why says how long already (`timed out after 5s: …`).
        const after = code === 6 ? '' : ` after ${fmtDuration(Date.now() / 1000 - started)} of watching`;
        const failure = session.currentReport?.launches.at(-1)?.failure;
        const why =
          lastSaid === v.why ? withoutFailure(whyAfterState(v), failure, 'above') : whyAfterState(v);
        const line = `${stateBadge(v, st)}${after}: ${why}`;
        const w = outputWidth(out);
        out.write(`${(w === null ? [line] : wrapLine(line, w, '  ')).join('\n')}\n`);
      }
      resolve(code);
    };
    session.on('tick', (v: Verdict) => {
      void rec?.observe(session.currentReport, session.observations.process?.pid ?? null);
      void rec?.verdict(v, session.currentReport);
      if (multi && v !== lastRecorded) {
        // The joined launch is kept when its verdict changes, not on every tick of every node.
        if (!lastRecorded || v.state !== lastRecorded.state || v.phase !== lastRecorded.phase)
          keepNodes(multi, v);
        lastRecorded = v;
      }
      if (view) view.draw(block(v));
      const ready = v.state === 'ready' || v.state === 'serving' || v.state === 'idle';
      const failed = v.state === 'crashed' || v.state === 'stalled' || v.state === 'dead';
      if (ready && !readyFired && typeof flags['on-ready'] === 'string') {
        readyFired = true;
        hooks.push(runHook(flags['on-ready'], v, log));
      }
      if (failed && !failFired && typeof flags['on-fail'] === 'string') {
        failFired = true;
        hooks.push(runHook(flags['on-fail'], v, log));
      }
      if (mode === 'wait' && reached(v, goal)) void finish(0, v);
      else if (mode === 'wait' && (failed || v.state === 'exited')) void finish(waitExitCode(v), v);
      else if (mode === 'watch' && v.final) void finish(waitExitCode(v), v);
      else if (timeout !== null && Date.now() / 1000 - started > timeout) {
        void finish(6, { ...v, why: `timed out after ${fmtDuration(timeout)}: ${whyAfterState(v)}` });
      }
    });
    // Standard input ended: the verdict can no longer change.
    // Logs of different launches: one line naming them, at once.
    session.on('mismatch', (why: string) => {
      if (done) return;
      done = true;
      session.stop();
      void ledger?.close();
      view?.close();
      process.stderr.write(`firedup: ${mode}: ${why}\n`);
      resolve(1);
    });
    session.once('end', () => {
      const v = session.tick();
      // Standard input closed before any line: nothing was watched, and waiting on would wait for nothing.
      if (log === '-' && !session.currentReport?.lines) {
        if (done) return;
        done = true;
        session.stop();
        void ledger?.close();
        view?.close();
        process.stderr.write(
          `firedup: ${mode}: standard input ended with no log lines: pipe the server's log in\n`,
        );
        resolve(1);
        return;
      }
      void finish(waitExitCode(v), v);
    });
    const stop = () => void finish(130, session.verdict ?? session.tick());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (view)
      unkeys = quitKeys((code) => {
        const v = session.verdict;
        if (v) void finish(code, v);
        else resolve(code);
      });
    session.start();
  });
}

export function watchCommand(argv: string[]): Promise<number> {
  return live({ mode: 'watch', argv });
}

export function waitCommand(argv: string[]): Promise<number> {
  return live({ mode: 'wait', argv });
}
