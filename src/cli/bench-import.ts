/**
 * `firedup bench import FILE`: reads benchmark results (core/bench) and attaches each to the launch that was
 * serving when it ran (app/bench-import.ts: fingerprint, placing, matching); prints what was attached.
 */
import fs from 'node:fs';
import { attachBenches, fingerprinted, type Placed, place, wallOf } from '../app/bench-import.js';
import { BenchParseError, type ParsedBench, parseBenchOutput } from '../core/bench/index.js';
import type { LaunchRecord } from '../core/records.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { LedgerError } from '../store/types.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { fmtNum, fmtTs, shortId } from './format-ledger.js';
import { LEDGER_FLAGS, LEDGER_HELP, withLedger } from './ledger-commands.js';
import { colorWanted, makeStyle } from './style.js';
import { type Row, renderTable } from './table.js';

const FLAGS: Record<string, FlagSpec> = {
  ...LEDGER_FLAGS,
  launch: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
};

function portFlag(v: unknown): number | null {
  if (v === undefined) return null;
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d+$/.test(v) || n < 1 || n > 65535)
    throw new UsageError(`bench import: --port ${String(v)}: expected a TCP port (1-65535)`);
  return n;
}

export async function benchCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h') {
    process.stdout.write(LEDGER_HELP);
    return 0;
  }
  if (sub === 'run') return (await import('./bench-run.js')).benchRunCommand(rest);
  if (sub === 'rm' || sub === 'attach') return benchFix(sub, rest);
  if (sub !== 'import')
    throw new UsageError(
      `bench: ${sub === undefined ? 'expected a subcommand' : `unknown subcommand '${sub}'`}: firedup bench run --url URL, bench import results.jsonl [--launch ID], bench attach BENCH LAUNCH, or bench rm BENCH`,
    );
  const { flags, positionals } = parseArgs(rest, FLAGS, 'bench import');
  if (flags.help) {
    process.stdout.write(LEDGER_HELP);
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError(
      'bench import: name one result file: firedup bench import results.jsonl [--launch ID]',
    );
  const file = positionals[0]!;
  const port = portFlag(flags.port);
  let text: string;
  let mtimeMs: number;
  try {
    const st = fs.statSync(file);
    if (st.isDirectory())
      throw new UsageError(`bench import: ${file} is a directory; name a result file in it`);
    text = fs.readFileSync(file, 'utf8');
    mtimeMs = st.mtimeMs;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(
      `bench import: ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message}`,
    );
  }
  let parsed: ParsedBench[];
  try {
    parsed = parseBenchOutput(text, file);
  } catch (e) {
    if (e instanceof BenchParseError) throw new UsageError(`bench import: ${e.message}`);
    throw e;
  }
  const placed = parsed.map((p) => place(fingerprinted(p), wallOf(mtimeMs / 1000), flags, port));
  return withLedger(flags, (ledger) => attach(ledger, file, placed, flags));
}

async function attach(
  ledger: LedgerStore,
  file: string,
  placed: Placed[],
  flags: Record<string, unknown>,
): Promise<number> {
  let forced: LaunchRecord | null = null;
  try {
    if (typeof flags.launch === 'string') forced = await ledger.resolve(flags.launch);
  } catch (e) {
    if (e instanceof LedgerError) throw new UsageError(`bench import: --launch: ${e.message}`);
    throw e;
  }
  const { done, unmatched } = await attachBenches(ledger, placed, forced);
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({
        file,
        attached: done.map((d) => ({ launch: d.launch.id, added: d.added, bench: d.record })),
        unmatched: unmatched.map((u) => ({
          source: u.result.source,
          finishedAt: u.result.finishedAt,
          host: u.host,
          port: u.port,
        })),
      })}\n`,
    );
  } else if (done.length) {
    const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
    const added = done.filter((d) => d.added).length;
    const again = done.length - added;
    process.stdout.write(
      `${file}: attached ${added} run${added === 1 ? '' : 's'}${again ? `; ${again} already attached before` : ''}\n`,
    );
    const rows: Row[] = done.map((d) => [
      `#${d.record.id}`,
      d.p.result.source,
      d.p.result.tool,
      `c=${d.p.result.maxConcurrency ?? '∞'}`,
      `${fmtNum(d.p.result.outputTokS)} tok/s`,
      '→',
      { text: shortId(d.launch.id), paint: st.bold },
      `${d.launch.model ?? '?'} on ${d.launch.host}${d.launch.port ? `:${d.launch.port}` : ''}, started ${fmtTs(d.launch.startTs)}`,
      { text: d.added ? '' : '(already attached)', paint: st.dim },
    ]);
    process.stdout.write(
      `${renderTable(null, rows, { right: [false, false, false, false, true], st }).join('\n')}\n`,
    );
    if (done.some((d) => d.p.fromFileTime) && !forced)
      process.stdout.write(
        st.dim("  runs without a date of their own were placed at the file's modification time\n"),
      );
  }
  if (unmatched.length) throw new UsageError(unmatchedMessage(file, unmatched, placed.length), 1);
  return 0;
}

function unmatchedMessage(file: string, un: Placed[], total: number): string {
  const where = [...new Set(un.map((u) => `${u.host}${u.port ? `:${u.port}` : ''}`))].join(', ');
  const times = un.map((u) => u.at).filter((t): t is number => t !== null);
  const when = times.length
    ? ` at ${fmtTs(Math.min(...times), true)}${times.length > 1 && Math.max(...times) !== Math.min(...times) ? ` – ${fmtTs(Math.max(...times), true)}` : ''}${un.some((u) => u.fromFileTime) ? " (the file's modification time)" : ''}`
    : '';
  const which =
    un.length === total
      ? total === 1
        ? 'its run matches'
        : `its ${total} runs match`
      : `${un.length} of its ${total} runs (${un.map((u) => u.result.source).join(', ')}) match`;
  return `bench import: ${file}: ${which} no launch serving on ${where}${when}; attach with --launch ID (firedup runs lists launches), or give --host/--port`;
}

/** `bench attach N LAUNCH` (a bench credited to the wrong launch, moved) and `bench rm N`: mistakes corrected. */
async function benchFix(sub: 'rm' | 'attach', rest: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(rest, LEDGER_FLAGS, `bench ${sub}`);
  if (flags.help) {
    process.stdout.write(LEDGER_HELP);
    return 0;
  }
  const want = sub === 'rm' ? 1 : 2;
  const usage = sub === 'rm' ? 'firedup bench rm 12' : 'firedup bench attach 12 d75e8a7b';
  if (positionals.length !== want)
    throw new UsageError(
      `bench ${sub}: name ${sub === 'rm' ? 'the bench' : 'the bench and the launch'}: ${usage}`,
    );
  const raw = positionals[0]!.replace(/^#/, '');
  if (!/^\d+$/.test(raw))
    throw new UsageError(
      `bench ${sub}: ${positionals[0]} is not a bench number (show LAUNCH lists them as #N): ${usage}`,
    );
  const id = Number(raw);
  return withLedger(flags, async (l) => {
    if (sub === 'rm') {
      if (!(await l.removeBench(id))) throw new UsageError(`bench rm: no bench #${id} in the ledger`);
      process.stdout.write(`removed bench #${id}\n`);
      return 0;
    }
    const launch = await l.resolve(positionals[1]!);
    const moved = await l.attachBench(id, launch.id);
    if (!moved) throw new UsageError(`bench attach: no bench #${id} in the ledger`);
    process.stdout.write(`bench #${id} → launch ${shortId(launch.id)}\n`);
    return 0;
  });
}
