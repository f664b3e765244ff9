/**
 * `firedup bench import FILE`: reads benchmark results (core/bench) and attaches each to the launch that was
 * serving when it ran (app/bench-import.ts: fingerprint, placing, matching); prints what was attached.
 */
import fs from 'node:fs';
import { attachBenches, fingerprinted, type Placed, place, wallOf } from '../app/bench-import.js';
import { BenchParseError, type ParsedBench, parseBenchOutput } from '../core/campaign/bench/index.js';
import type { BenchRecord, LaunchRecord } from '../core/campaign/records.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { LedgerError } from '../store/types.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { fmtNum, fmtTs, shortId } from './format-ledger.js';
import { helpFor } from './help.js';
import { LEDGER_FLAGS, LEDGER_HELP, withLedger } from './ledger-commands.js';
import { colorWanted, makeStyle } from './style.js';
import { type Row, renderTable } from './table.js';

export const FLAGS: Record<string, FlagSpec> = {
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
  if (sub === 'rm' || sub === 'attach' || sub === 'detach') return benchFix(sub, rest);
  if (sub === 'list') return benchList(rest);
  if (sub !== 'import')
    throw new UsageError(
      `bench: ${sub === undefined ? 'expected a subcommand' : `unknown subcommand '${sub}'`}: firedup bench run --url URL, bench import results.jsonl [--launch ID], bench list, bench attach BENCH LAUNCH, bench detach BENCH, or bench rm BENCH`,
    );
  const { flags, positionals } = parseArgs(rest, FLAGS, 'bench import');
  if (flags.help) {
    process.stdout.write(helpFor('bench import')!);
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
          bench: u.kept.id,
          why: u.kept.unattached ?? null,
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

function unmatchedMessage(file: string, un: Array<Placed & { kept: BenchRecord }>, total: number): string {
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
  const kept = un.map((u) => `#${u.kept.id}`).join(', ');
  return `bench import: ${file}: ${which} no launch serving on ${where}${when}; kept unattached as bench ${kept}: firedup bench attach ${un[0]!.kept.id} LAUNCH places it (firedup runs lists launches), or import again with --launch ID or --host/--port`;
}

/**
 * `bench attach N LAUNCH` (a bench credited to the wrong launch, or to none, placed), `bench detach N` (kept
 * without a launch) and `bench rm N`: mistakes corrected.
 */
async function benchFix(sub: 'rm' | 'attach' | 'detach', rest: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(rest, LEDGER_FLAGS, `bench ${sub}`);
  if (flags.help) {
    process.stdout.write(helpFor('bench import')!);
    return 0;
  }
  const want = sub === 'attach' ? 2 : 1;
  const usage = sub === 'attach' ? 'firedup bench attach 12 d75e8a7b' : `firedup bench ${sub} 12`;
  if (positionals.length !== want)
    throw new UsageError(
      `bench ${sub}: name ${sub === 'attach' ? 'the bench and the launch' : 'the bench'}: ${usage}`,
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
    if (sub === 'detach') {
      const b = await l.detachBench(id, 'detached by hand (firedup bench detach)');
      if (!b) throw new UsageError(`bench detach: no bench #${id} in the ledger`);
      process.stdout.write(
        `bench #${id} kept without a launch (firedup bench attach ${id} LAUNCH places it)\n`,
      );
      return 0;
    }
    const launch = await l.resolve(positionals[1]!);
    const moved = await l.attachBench(id, launch.id);
    if (!moved) throw new UsageError(`bench attach: no bench #${id} in the ledger`);
    process.stdout.write(`bench #${id} → launch ${shortId(launch.id)}\n`);
    return 0;
  });
}

/** `bench list`: the benches no launch holds, with why (a launch's own are in `show LAUNCH`). */
async function benchList(rest: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(rest, LEDGER_FLAGS, 'bench list');
  if (flags.help) {
    process.stdout.write(helpFor('bench import')!);
    return 0;
  }
  if (positionals.length)
    throw new UsageError(`bench list: takes no arguments (got ${positionals.join(' ')})`);
  return withLedger(
    flags,
    async (l) => {
      const list = await l.unattachedBenches();
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ ledger: l.path, unattached: list })}\n`);
        return 0;
      }
      if (!list.length) {
        process.stdout.write(
          'no unattached benches: every recorded bench is on a launch (firedup show LAUNCH)\n',
        );
        return 0;
      }
      const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
      process.stdout.write(`${list.length} bench${list.length === 1 ? '' : 'es'} without a launch:\n`);
      const rows: Row[] = list.map((b) => [
        `#${b.id}`,
        b.source,
        b.tool,
        `c=${b.maxConcurrency ?? '∞'}`,
        `${fmtNum(b.outputTokS)} tok/s`,
        fmtTs(b.finishedAt ?? null),
        { text: b.unattached ?? '', paint: st.dim },
      ]);
      process.stdout.write(
        `${renderTable(null, rows, { right: [false, false, false, false, true], st }).join('\n')}\n`,
      );
      process.stdout.write(
        st.dim('  firedup bench attach N LAUNCH places one; firedup bench rm N deletes it\n'),
      );
      return 0;
    },
    'read',
  );
}
