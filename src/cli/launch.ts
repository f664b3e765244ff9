/**
 * `firedup launch -- <server command>`: runs the server with its output appended to a log, watches that
 * launch live (the `watch` view), holds the flags it was given against the config it logs, records it in
 * the ledger, and exits with the server's own status.
 */
import { checkCommand, defaultLogName } from '../app/launch-process.js';
import { LaunchError, WatchedLaunch } from '../app/launch-server.js';
import type { LiveEvent } from '../app/live.js';
import { intendedUrl, parseCommand } from '../core/campaign/intended.js';
import type { IntendedCheck, Mismatch } from '../core/campaign/intended-check.js';
import type { LaunchReport } from '../core/reading/report.js';
import type { Verdict } from '../core/verdict/verdict.js';
import type { EngineInstall } from '../probes/engine-install.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { checkSummary, exitLine, installLine, mismatchLine } from './launch-output.js';
import { engineFlag } from './read.js';
import { ledgerFile } from './recording.js';
import { urlFlag } from './status-live.js';
import { colorWanted, makeStyle } from './style.js';
import { eventLine, LiveView, renderBlock, stamp } from './view.js';
import { budgetScale } from './watch.js';
import { outputWidth } from './width.js';

export const FLAGS: Record<string, FlagSpec> = {
  log: { type: 'string' },
  ledger: { type: 'string' },
  'no-ledger': { type: 'boolean' },
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
  --no-ledger    record nothing (FIREDUP_LEDGER=off does the same)
  --url U        the server's HTTP address (default: from --host/--port on the command line)
  --engine NAME  read the log as this engine (default: from the command)
  --json         newline-delimited JSON events (watch's, plus started, intended, mismatch, config, signal, exit)
  --no-gpu       do not run nvidia-smi

  Ctrl-C or SIGTERM is passed on to the server's process group and firedup waits for it to exit; a second
  one kills the group (SIGKILL). If firedup itself dies, the server keeps running and logging, as with nohup.
`;

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
  dockerRefusal(typeof flags.log === 'string' ? flags.log : null, rest);
  const cwd = process.cwd();
  const env = process.env;
  const cmd = parseCommand(rest, engineFlag(flags.engine) ?? null);
  checkCommand(rest[0]!, env, cwd);
  const url = urlFlag(flags.url) ?? intendedUrl(cmd.flags);
  const scale = budgetScale();
  // The same ledger every other command uses (a postgres:// URL kept as given, a path resolved); none with
  // --no-ledger or FIREDUP_LEDGER=off.
  const ledgerPath =
    flags['no-ledger'] || (flags.ledger === undefined && process.env.FIREDUP_LEDGER === 'off')
      ? null
      : ledgerFile(flags);
  const logPath =
    typeof flags.log === 'string' ? flags.log : `./${defaultLogName(cmd.engine ?? cmd.program, new Date())}`;
  const json = Boolean(flags.json);
  const tty = !json && Boolean(process.stdout.isTTY);
  const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
  const warn = (msg: string) => process.stderr.write(`firedup: ${msg}\n`);

  let w: WatchedLaunch;
  try {
    w = await WatchedLaunch.start({
      argv: rest,
      log: logPath,
      ledgerPath,
      url: url ?? null,
      engine: cmd.engine,
      gpu: flags['no-gpu'] ? false : undefined,
      budgetScale: scale,
      cwd,
      env,
      warn: (msg) => warn(msg),
    });
  } catch (e) {
    if (e instanceof LaunchError) throw new UsageError(`launch: ${e.message}`, e.status);
    throw e;
  }
  const { session, intended, pid, log } = w;
  const out = (line: string) => {
    if (view && session.verdict) view.log(line, block(session.verdict));
    else process.stdout.write(`${line}\n`);
  };
  const emit = (obj: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(obj)}\n`);
  const view = tty ? new LiveView(process.stdout) : null;
  const width = () => outputWidth() ?? 100;
  const block = (v: Verdict) => {
    const r = session.currentReport;
    const lines = renderBlock(
      logPath,
      w.shown(v),
      r && { ...r, launches: w.ours(r) },
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

  w.on('install', (i: EngineInstall) => {
    if (json) emit({ type: 'intended', ...intended });
    else if (i.version || i.git) out(installLine(i, st));
  });
  w.on('mismatch', (m: Mismatch) => {
    if (json) emit({ type: 'mismatch', ...m });
    else out(mismatchLine(m, st));
  });
  w.on('checked', (c: IntendedCheck, l: LaunchReport) => {
    if (json) emit({ type: 'config', checks: c.checks, unobservable: c.unobservable, fullDump: c.fullDump });
    else out(checkSummary(c, l.engine ?? cmd.engine, st));
  });
  w.on('event', (e: LiveEvent) => {
    if (json) {
      emit(e.type === 'verdict' ? { type: 'verdict', ...e.verdict } : e);
      return;
    }
    const line = eventLine(e, st);
    if (line !== null) out(line);
  });
  w.on('tick', (v: Verdict) => {
    if (view) view.draw(block(v));
  });

  // Ctrl-C and SIGTERM go to the server's group; a second one kills the group.
  const onSignal = (sig: NodeJS.Signals) => {
    const s: NodeJS.Signals = w.stops === 0 ? sig : 'SIGKILL';
    w.signal(s);
    if (json) emit({ type: 'signal', signal: s, pid });
    else
      out(
        stamp(
          `sent ${s} to the server (pid ${pid}, its process group)${w.stops === 1 ? '; again to kill it' : ''}`,
          st,
        ),
      );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const { verdict: v, exit, status } = await w.finish();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  const { code, signal } = exit;
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

/**
 * What `launch` cannot do with a container, refused in one line naming what does: its log is a file it appends the
 * server's output to (not `docker://NAME`, whose log docker keeps), and the server is its own child, watched to its
 * exit (not `docker run -d`, which returns as soon as the container started). A server in a container is started
 * with docker and followed as one: `firedup watch docker://NAME` (the container's state, exit and OOM kill included).
 */
export function dockerRefusal(log: string | null, argv: readonly string[]): void {
  if (log?.startsWith('docker://'))
    throw new UsageError(
      `launch: --log ${log}: launch writes the server's output to a file; a container's log is docker's: start it with \`docker run -d --name NAME …\` and follow it with \`firedup watch ${log}\``,
    );
  const prog = argv[0]?.split('/').pop();
  if (prog !== 'docker' && prog !== 'podman') return;
  const sub = argv.findIndex((a) => a === 'run' || a === 'start' || a === 'create');
  if (sub < 0) return;
  const words = argv.slice(sub + 1);
  const has = (long: string, short: string) =>
    words.some(
      (a) =>
        a === `--${long}` || a === `--${long}=true` || new RegExp(`^-[a-zA-Z]*${short}[a-zA-Z]*$`).test(a),
    );
  const detached =
    argv[sub] === 'create' || (argv[sub] === 'start' ? !has('attach', 'a') : has('detach', 'd'));
  if (!detached) return;
  const name = nameOf(words);
  throw new UsageError(
    `launch: \`${argv.slice(0, sub + 1).join(' ')}${argv[sub] === 'run' ? ' -d' : ''}\` returns at once, so there is no server process to watch: run it yourself and follow the container with \`firedup watch docker://${name ?? 'NAME'}\` (or drop -d to launch it in the foreground)`,
  );
}

/** The container's `--name` in a `docker run` line, if given. */
function nameOf(words: readonly string[]): string | null {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--name') return words[i + 1] ?? null;
    if (w.startsWith('--name=')) return w.slice('--name='.length);
  }
  return null;
}
