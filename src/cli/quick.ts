/**
 * The answers that need no command module and no log: `firedup`, `--help`, `--version`. main.ts asks here
 * first; bin/firedup.js asks here without loading the CLI bundle at all (this file is bundled on its own,
 * dist/bundle/cli/quick.cjs), so the most common first commands cost about a bare Node start.
 */
import { createRequire } from 'node:module';
import { helpText } from './help.js';

/** The first arguments answered here; bin/firedup.js requires its bundle (dist/bundle/cli/quick.cjs) only for these. */
export const QUICK_ARGS: ReadonlyArray<string | undefined> = [
  undefined,
  '-h',
  '--help',
  '-V',
  '-v',
  '--version',
  'version',
];

function version(): string {
  // Three levels up from dist/src/cli/ and from dist/bundle/cli/ alike: the package root.
  const require = createRequire(import.meta.url);
  return (require('../../../package.json') as { version: string }).version;
}

/** What to print and the exit code for a quick first argument, or null for anything else. */
export function quickAnswer(cmd: string | undefined): { out: string; code: number } | null {
  // No command at all is a usage error (scripts notice it); asking for help is not.
  if (cmd === undefined || cmd === '-h' || cmd === '--help')
    return { out: helpText(), code: cmd === undefined ? 1 : 0 };
  if (cmd === '-V' || cmd === '-v' || cmd === '--version' || cmd === 'version')
    return { out: `${version()}\n`, code: 0 };
  return null;
}
