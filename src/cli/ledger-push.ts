/**
 * `firedup ledger push --to postgres://…`: copies this machine's ledger (--ledger, FIREDUP_LEDGER or the
 * default file) into another one, so a laptop's history joins the team's (app/ledger-push.ts). Safe to repeat.
 */
import { pushLedger } from '../app/ledger-push.js';
import { redactText } from '../core/config/redact.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { isUrl } from '../store/ledger-url.js';
import { openLedger } from '../store/open.js';
import { LedgerError } from '../store/types.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { ledgerPath, openForReading } from './ledger-commands.js';

export const FLAGS: Record<string, FlagSpec> = {
  ledger: { type: 'string' },
  to: { type: 'string' },
  json: { type: 'boolean' },
};

export const LEDGER_PUSH_USAGE = `firedup ledger push --to URL [--ledger PATH] [--json]

Copies every launch of the local ledger (--ledger PATH, else FIREDUP_LEDGER, else
~/.local/share/firedup/ledger.db), with its benchmark runs and live verdict, and the targets, into the ledger
at URL (a shared one: postgres://user:pass@host/db). A launch already there is updated, never added twice,
so pushing again is safe.

Example:
  firedup ledger push --to postgres://firedup@db.lab:5432/firedup
`;

export async function ledgerCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(LEDGER_PUSH_USAGE);
    return 0;
  }
  if (sub !== 'push')
    throw new UsageError(
      `ledger: ${sub === undefined ? 'expected a subcommand' : `unknown subcommand '${sub}'`}: firedup ledger push --to postgres://…`,
    );
  const { flags, positionals } = parseArgs(rest, FLAGS, 'ledger push');
  if (flags.help) {
    process.stdout.write(LEDGER_PUSH_USAGE);
    return 0;
  }
  if (positionals.length)
    throw new UsageError(
      `ledger push: takes no arguments (got ${positionals.join(' ')}); --to URL names where`,
    );
  if (typeof flags.to !== 'string' || flags.to.trim() === '')
    throw new UsageError('ledger push: --to needs the ledger to copy into: --to postgres://user@host/db');
  const source = ledgerPath(flags);
  const dest = flags.to;
  if (
    source === dest ||
    (!isUrl(dest) && !isUrl(source) && (await import('node:path')).resolve(dest) === source)
  )
    throw new UsageError(`ledger push: --to ${redactText(dest)} is the ledger being pushed; name another`);
  // Opening a ledger creates it: a push from one that is not there would say "pushed 0 launches" and leave an
  // empty file behind, where the user mistyped the path.
  if (!isUrl(source) && !(await import('node:fs')).existsSync(source))
    throw new UsageError(`ledger push: ${source}: no such ledger (check --ledger or FIREDUP_LEDGER)`);
  let from: LedgerStore | undefined;
  let to: LedgerStore | undefined;
  try {
    from = await openForReading(source);
    to = await openLedger(dest);
    const tty = !flags.json && process.stderr.isTTY;
    const r = await pushLedger(from, to, (done, total) => {
      if (tty) process.stderr.write(`\r  ${done}/${total} launches`);
    });
    if (tty) process.stderr.write('\r\x1b[K');
    if (flags.json) process.stdout.write(`${JSON.stringify({ from: from.path, to: to.path, ...r })}\n`);
    else
      process.stdout.write(
        `pushed ${r.launches} launch${r.launches === 1 ? '' : 'es'} from ${from.path} to ${to.path}: ${r.added} new, ${r.launches - r.added} already there (updated); ${r.benches} benchmark run${r.benches === 1 ? '' : 's'} (${r.benchesAdded} new); ${r.targets} target${r.targets === 1 ? '' : 's'}${r.sweepRuns ? `; ${r.sweepRuns} sweep run${r.sweepRuns === 1 ? '' : 's'} (${r.sweepRunsAdded} new)` : ''}\n`,
      );
    return 0;
  } catch (e) {
    if (e instanceof LedgerError) throw new UsageError(`ledger push: ${e.message}`);
    throw e;
  } finally {
    await from?.close();
    await to?.close();
  }
}
