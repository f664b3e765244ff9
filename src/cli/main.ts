/** The `firedup` command: dispatch, and the one place where user mistakes become one-line messages. */
import { createRequire } from 'node:module';
import { diffConfig } from '../core/diff.js';
import type { LaunchReport } from '../core/report.js';
import { type FlagSpec, parseArgs } from './args.js';
import { demoCommand } from './demo.js';
import { UsageError } from './errors.js';
import { formatRuns, formatStatus } from './format.js';
import { engineFlag, explainNoLaunch, isRemote, readLog, sshFlags } from './read.js';
import { replayCommand } from './replay.js';
import { pidFlag, statusVerdict, urlFlag } from './status-live.js';
import { colorWanted, makeStyle } from './style.js';
import { waitCommand, watchCommand } from './watch.js';

const HELP = `firedup — read an LLM inference server's log and say which launch and phase it is in, and why

Usage:
  firedup status <log> [--json] [--url U] [--pid P]
                                    the latest launch: phase, progress, ETA, outcome, failure with evidence,
                                    config summary, what changed since the previous launch, and (from the
                                    file's age, the process and the port) whether it is stalled or dead now
  firedup runs <log> [--json]       every launch in the file
  firedup watch <log> [--url U] [--pid P] [--json]
                                    a live view: phase, progress, ETA, GPUs, evidence, and the verdict
                                    (ready, stalled, crashed, exited, dead) as it happens
  firedup wait <log> [--timeout 30m]
                                    block until ready (0), crashed (2), stalled (4), exited/dead (5), timeout (6)
  firedup replay <log> --speed 20 --out FILE [--serve PORT]
                                    write a recorded log into FILE at its own timing, scaled
  firedup demo                      watch a bundled GLM-5 launch replayed live (no GPU needed)

  <log> is a file path, or - for standard input; status and runs also read [user@]host:path and
  ssh://[user@]host[:port]/path through the system ssh (nothing installed on the server).

Options:
  --ssh-config FILE   ssh client config for remote logs (ssh -F)
  --ssh-option K=V    an ssh option for remote logs (ssh -o), repeatable
  --json              machine-readable output (see README, "JSON contract")
  --engine NAME       read the log as sglang, vllm, trtllm, tgi or llamacpp instead of detecting it
  --no-color          no colour even on a terminal (NO_COLOR is honoured too)
  -h, --help          this help
  -v, --version       the version

Exit codes of status: 0 ready or serving, 2 crashed, 3 still starting, 4 stalled, 5 shut down or dead,
1 usage error or unreadable input.
`;

const COMMON: Record<string, FlagSpec> = {
  json: { type: 'boolean' },
  engine: { type: 'string' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', alias: 'h' },
  'ssh-config': { type: 'string' },
  'ssh-option': { type: 'string', multi: true },
};

export const STATUS_EXIT: Record<LaunchReport['outcome'], number> = {
  ready: 0,
  serving: 0,
  crashed: 2,
  in_progress: 3,
  shutdown: 5,
};

function version(): string {
  const require = createRequire(import.meta.url);
  return (require('../../../package.json') as { version: string }).version;
}

function out(s: string): void {
  process.stdout.write(s);
}

export async function main(argv: string[]): Promise<number> {
  try {
    return await run(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`firedup: ${err.message}\n`);
      return err.exitCode;
    }
    if ((err as NodeJS.ErrnoException)?.code === 'EPIPE') return 0;
    throw err;
  }
}

async function run(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '-h' || cmd === '--help' || cmd === 'help') {
    out(HELP);
    return cmd === undefined ? 1 : 0;
  }
  if (cmd === '-v' || cmd === '--version' || cmd === 'version') {
    out(`${version()}\n`);
    return 0;
  }
  switch (cmd) {
    case 'status':
      return status(rest);
    case 'runs':
      return runs(rest);
    case 'watch':
      return watchCommand(rest);
    case 'wait':
      return waitCommand(rest);
    case 'replay':
      return replayCommand(rest);
    case 'demo':
      return demoCommand(rest);
    default:
      throw new UsageError(
        `unknown command '${cmd}' (commands: status, runs, watch, wait, replay, demo; see firedup --help)`,
      );
  }
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
};

async function status(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, STATUS_FLAGS, 'status');
  if (flags.help) {
    out(HELP);
    return 0;
  }
  const target = oneLog(positionals, 'status');
  // --url and --pid probe this machine; over ssh they would describe the wrong host.
  if (isRemote(target) && (flags.url !== undefined || flags.pid !== undefined))
    throw new UsageError('status: --url and --pid are not supported for a remote log yet');
  const res = await readLog(target, { engine: engineFlag(flags.engine) }, sshFlags(flags));
  const { report } = res;
  const last = report.launches[report.launches.length - 1];
  if (!last) {
    if (flags.json)
      out(
        `${JSON.stringify({ engine: report.engine, outcome: 'unknown', phase: null, failure: null, progress: null, launches: 0 })}\n`,
      );
    throw new UsageError(explainNoLaunch(target, res));
  }
  const live = await statusVerdict(report, res.mtimeMs, { url: urlFlag(flags.url), pid: pidFlag(flags.pid) });
  if (flags.json) {
    const prev = report.launches.length > 1 ? report.launches[report.launches.length - 2]! : null;
    const changes = prev ? diffConfig(prev.config, last.config) : [];
    out(
      `${JSON.stringify({ ...last, engine: last.engine ?? report.engine, launchCount: report.launches.length, changes, live })}\n`,
    );
  } else {
    const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
    out(formatStatus(target === '-' ? '(stdin)' : target, report, st));
    if (live && ['stalled', 'dead', 'idle'].includes(live.state))
      out(
        `  ${st.yellow(`now: ${live.state}`)} — ${live.why}${live.next ? `\n  ${st.cyan('next:')} ${live.next}` : ''}\n`,
      );
  }
  if (live?.state === 'stalled') return 4;
  if (live?.state === 'dead') return 5;
  return STATUS_EXIT[last.outcome];
}

async function runs(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, COMMON, 'runs');
  if (flags.help) {
    out(HELP);
    return 0;
  }
  const target = oneLog(positionals, 'runs');
  const res = await readLog(target, { engine: engineFlag(flags.engine) }, sshFlags(flags));
  const { report } = res;
  if (flags.json) {
    out(
      `${JSON.stringify({ engine: report.engine, lines: report.lines, bytes: report.bytes, launches: report.launches })}\n`,
    );
    return 0;
  }
  if (report.launches.length === 0) {
    process.stderr.write(`firedup: ${explainNoLaunch(target, res)}\n`);
    return 0;
  }
  const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
  out(formatRuns(target === '-' ? '(stdin)' : target, report, st));
  return 0;
}
