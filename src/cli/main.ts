/** The `firedup` command: dispatch, and the one place where user mistakes become one-line messages. */

import { LedgerError } from '../store/types.js';
import { COMMAND_NAMES } from './commands.js';
import { UsageError } from './errors.js';
import { helpFor, helpText } from './help.js';
import { quickAnswer } from './quick.js';
import { onStdout, outputError } from './stdout.js';
import { didYouMean } from './suggest.js';

function out(s: string): void {
  process.stdout.write(s);
}

/**
 * Runs one command: the modules of `cmd` are loaded by `dispatch` (dispatch.ts: every command; the `status`
 * bundle's entry, bin-status.ts: that one only, so that its bundle holds no other command's code).
 */
export type Dispatch = (cmd: string, rest: string[]) => Promise<number>;

export async function main(argv: string[], dispatch: Dispatch): Promise<number> {
  // `firedup runs big.log | head`: the reader went away, which is not an error. Registered when the stream is
  // made: `status` writes without it (stdout.ts).
  onStdout((stream) =>
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      process.stderr.write(`firedup: ${outputError(err).message}\n`);
      process.exit(1);
    }),
  );
  try {
    return await run(argv, dispatch);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`firedup: ${err.message}\n`);
      return err.exitCode;
    }
    // A ledger that cannot be used is the user's file to move aside, not firedup's bug: one line.
    if (err instanceof LedgerError) {
      process.stderr.write(`firedup: ${err.message}\n`);
      return 1;
    }
    if ((err as NodeJS.ErrnoException)?.code === 'EPIPE') return 0;
    throw err;
  }
}

/** True when the command's own arguments ask for help (`firedup status -h`); after `--` they are the server's. */
function asksHelp(args: string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === '-h' || a === '--help') return true;
  }
  return false;
}

async function run(argv: string[], dispatch: Dispatch): Promise<number> {
  const [cmd, ...rest] = argv;
  const quick = quickAnswer(cmd);
  if (quick) {
    out(quick.out);
    return quick.code;
  }
  if (cmd === 'help')
    return help(
      asksHelp(rest) ? 'help' : rest[0] === 'bench' && rest[1] === 'import' ? 'bench import' : rest[0],
    );
  if (!COMMAND_NAMES.includes(cmd)) {
    const hint = cmd.startsWith('-')
      ? didYouMean(cmd, ['--help', '--version'])
      : didYouMean(cmd, COMMAND_NAMES, (c) => `'${c}'`);
    throw new UsageError(
      `unknown ${cmd.startsWith('-') ? 'option' : 'command'} '${cmd}'${hint} (firedup --help lists the commands)`,
    );
  }
  // `bench run` has more options than the command table shows: it prints its own help. `bench import` has its page.
  if (asksHelp(rest) && cmd === 'bench' && rest[0] === 'import') return help('bench import');
  if (asksHelp(rest) && !(cmd === 'bench' && rest[0] === 'run')) return help(cmd);
  return dispatch(cmd, rest);
}

function help(name: string | undefined): number {
  if (name === undefined) {
    out(helpText());
    return 0;
  }
  const text = helpFor(name);
  if (text === null)
    throw new UsageError(
      `help: no command '${name}'${didYouMean(name, COMMAND_NAMES, (c) => `'${c}'`)} (firedup --help lists them)`,
    );
  out(text);
  return 0;
}
