/** The `firedup` command: dispatch, and the one place where user mistakes become one-line messages. */
import { createRequire } from 'node:module';
import { UsageError } from './errors.js';
import { helpText } from './help.js';

function version(): string {
  const require = createRequire(import.meta.url);
  return (require('../../../package.json') as { version: string }).version;
}

function out(s: string): void {
  process.stdout.write(s);
}

export async function main(argv: string[]): Promise<number> {
  // `firedup runs big.log | head`: the reader went away, which is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
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
    out(await helpText());
    return cmd === undefined ? 1 : 0;
  }
  if (cmd === '-v' || cmd === '--version' || cmd === 'version') {
    out(`${version()}\n`);
    return 0;
  }
  // Each command's modules load only when it runs: `status` does not pay for the dashboard or `launch`.
  switch (cmd) {
    case 'status':
      return (await import('./status.js')).status(rest);
    case 'runs': {
      const ledger = await import('./ledger-commands.js');
      return ledger.isLedgerRuns(rest)
        ? ledger.ledgerRunsCommand(rest)
        : (await import('./status.js')).runs(rest);
    }
    case 'show':
      return (await import('./ledger-commands.js')).showCommand(rest);
    case 'diff':
      return (await import('./ledger-commands.js')).diffCommand(rest);
    case 'bench':
      return (await import('./bench-import.js')).benchCommand(rest);
    case 'target':
      return (await import('./ledger-commands.js')).targetCommand(rest);
    case 'forget':
      return (await import('./ledger-commands.js')).forgetCommand(rest);
    case 'watch':
      return (await import('./watch.js')).watchCommand(rest);
    case 'wait':
      return (await import('./watch.js')).waitCommand(rest);
    case 'replay':
      return (await import('./replay.js')).replayCommand(rest);
    case 'demo':
      return (await import('./demo.js')).demoCommand(rest);
    case 'launch':
      return (await import('./launch.js')).launchCommand(rest);
    case 'serve':
      return (await import('./serve.js')).serveCommand(rest);
    default:
      throw new UsageError(
        `unknown command '${cmd}' (commands: status, runs, show, diff, forget, bench, target, watch, wait, replay, demo, serve, launch; see firedup --help)`,
      );
  }
}
