/**
 * `firedup sweep FILE`: runs a tuning campaign from a sweep file (src/app/sweep-file.ts) — every point of its
 * grid launched, checked, benchmarked and stopped in turn (src/app/sweep-run.ts) — and ranks the points against
 * the targets. `firedup sweep report [NAME]` shows the ranking again from the ledger.
 */
import fs from 'node:fs';
import { checkCommand } from '../app/launch-process.js';
import { loadSweepFile } from '../app/sweep-file.js';
import { sweepReport } from '../app/sweep-report.js';
import { killSweepServers, planPoints, runSweep } from '../app/sweep-run.js';
import { redactArgv } from '../core/campaign/intended-env.js';
import { publicSpec, SweepPlanError } from '../core/campaign/sweep/plan.js';
import { redactConfig } from '../core/config/redact.js';
import { isUrl } from '../store/ledger-url.js';
import { LedgerError } from '../store/types.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { LEDGER_FLAGS, ledgerPath, withLedger } from './ledger-commands.js';
import { colorWanted, makeStyle } from './style.js';
import { eventText, formatPlan, formatReport } from './sweep-output.js';
import { budgetScale } from './watch.js';

export const FLAGS: Record<string, FlagSpec> = {
  ...LEDGER_FLAGS,
  'dry-run': { type: 'boolean' },
  resume: { type: 'boolean' },
  'no-gpu': { type: 'boolean' },
  'max-points': { type: 'string' },
};

export async function sweepCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS, 'sweep');
  const st = makeStyle(!flags.json && colorWanted(process.stdout, Boolean(flags['no-color'])));
  if (positionals[0] === 'report') return reportCommand(positionals.slice(1), flags, st);
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length
        ? `sweep: one sweep file at a time (got ${positionals.join(', ')})`
        : 'sweep: name the sweep file: firedup sweep sweep.toml (firedup sweep --help shows its format)',
    );
  const loaded = loadSweepFile(positionals[0]!);
  const maxPoints = maxPointsFlag(flags['max-points']);
  let points: ReturnType<typeof planPoints>;
  try {
    points = planPoints(loaded, maxPoints);
  } catch (e) {
    if (e instanceof SweepPlanError) throw new UsageError(`${loaded.file}: ${e.message}`);
    throw e;
  }
  if (flags['dry-run']) {
    // secrets run, but are never printed: the command, the variants and secret axes shown redacted
    const shown = points.map((p) => ({ ...p, argv: redactArgv(p.argv) }));
    if (flags.json)
      process.stdout.write(`${JSON.stringify({ spec: publicSpec(loaded.spec), points: shown })}\n`);
    else process.stdout.write(formatPlan(loaded, points, st));
    return 0;
  }
  // A missing server binary is the file's mistake, found before the first point rather than at each.
  try {
    checkCommand(loaded.spec.command[0]!, process.env, loaded.dir);
  } catch (e) {
    if (e instanceof UsageError)
      throw new UsageError(`${loaded.file}: command: ${e.message.replace(/^launch: /, '')}`, 1);
    throw e;
  }
  if (process.env.FIREDUP_LEDGER === 'off' || flags['no-ledger'])
    throw new UsageError(
      'sweep: a sweep records every point in the ledger; drop --no-ledger (or FIREDUP_LEDGER=off)',
    );
  const ledger = ledgerPath(flags);

  const stop = new AbortController();
  const kill = new AbortController();
  let interrupts = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    interrupts++;
    if (interrupts === 1) {
      // On SIGHUP the terminal may be gone: a write that fails must not stop the stopping.
      try {
        process.stderr.write(`firedup: ${sig}: stopping the current point's server; again to kill it\n`);
      } catch {}
      stop.abort();
    } else kill.abort();
  };
  // A closed terminal (SIGHUP) stops the sweep as Ctrl-C does; an exit by any other path (an uncaught error,
  // process.exit) kills what is still up: a server left running holds the port every later point needs.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  process.on('exit', killSweepServers);
  const json = Boolean(flags.json);
  if (!json) process.stdout.write(`${formatPlan(loaded, points, st).split('\n').slice(0, 5).join('\n')}\n\n`);
  let outcome: Awaited<ReturnType<typeof runSweep>>;
  try {
    outcome = await runSweep({
      loaded,
      ledgerPath: ledger,
      resume: Boolean(flags.resume),
      gpu: !flags['no-gpu'],
      budgetScale: budgetScale(),
      env: process.env,
      warn: (m) => process.stderr.write(`firedup: ${m}\n`),
      onEvent: (e) => {
        if (json)
          process.stdout.write(
            `${JSON.stringify(redactConfig({ type: e.type, point: e.point.index, hash: e.point.hash, ...eventFields(e) }))}\n`,
          );
        else process.stdout.write(`${eventText(e, points.length, st)}\n`);
      },
      signal: stop.signal,
      kill: kill.signal,
      maxPoints,
    });
  } catch (e) {
    if (e instanceof LedgerError) throw new UsageError(e.message);
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
  const report = await withLedger(flags, (l) => sweepReport(l, loaded.spec.name, loaded.spec.targets));
  if (json) process.stdout.write(`${JSON.stringify({ type: 'report', ...outcome, report })}\n`);
  else {
    process.stdout.write('\n');
    if (report) process.stdout.write(formatReport(report, st));
    if (outcome.skipped)
      process.stdout.write(
        `  ${outcome.skipped} point run${outcome.skipped === 1 ? '' : 's'} skipped (--resume: already done)\n`,
      );
    if (outcome.interrupted)
      process.stdout.write(`  interrupted: firedup sweep --resume ${positionals[0]} runs what is left\n`);
  }
  if (outcome.interrupted) return 130;
  // A tie within noise is no failure: some point met the targets, the report says which are in the running.
  return report?.leader ? 0 : 3;
}

function maxPointsFlag(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v).replace(/[_,]/g, '');
  if (!/^\d+$/.test(s) || Number(s) < 1)
    throw new UsageError(`sweep: --max-points ${v}: a whole number of points, e.g. 20000`);
  return Number(s);
}

function eventFields(e: Parameters<Parameters<typeof runSweep>[0]['onEvent']>[0]): Record<string, unknown> {
  switch (e.type) {
    case 'skip':
      return { run: e.run.run, status: e.run.status };
    case 'start':
      return { run: e.run, pid: e.pid, log: e.log, label: e.point.label };
    case 'ready':
      return { seconds: e.seconds, why: e.verdict.why };
    case 'checked':
      return { mismatches: e.mismatches, unobservable: e.unobservable };
    case 'bench':
      return {
        levels: e.result.levels.map((l) => ({
          concurrency: l.metrics.level.concurrency,
          outputTokS: l.metrics.outputTokS,
          failed: l.metrics.failed,
        })),
      };
    case 'stopping':
      return { signal: e.signal };
    case 'end':
      return { status: e.status, detail: e.detail };
  }
}

async function reportCommand(
  args: string[],
  flags: Record<string, unknown>,
  st: ReturnType<typeof makeStyle>,
): Promise<number> {
  if (args.length > 1)
    throw new UsageError(`sweep report: one sweep name at a time (got ${args.join(', ')})`);
  if (!isUrl(ledgerPath(flags)) && !fs.existsSync(ledgerPath(flags))) {
    process.stdout.write('no sweep recorded yet (firedup sweep FILE runs one)\n');
    return 0;
  }
  return withLedger(flags, async (l) => {
    const all = await l.sweeps();
    if (!all.length) {
      process.stdout.write('no sweep recorded yet (firedup sweep FILE runs one)\n');
      return 0;
    }
    const name = args[0] ?? all[0]!.name;
    const r = await sweepReport(l, name);
    if (!r)
      throw new UsageError(
        `sweep report: no sweep named ${name} (recorded: ${all.map((s) => s.name).join(', ')})`,
      );
    if (flags.json) process.stdout.write(`${JSON.stringify(r)}\n`);
    else {
      process.stdout.write(formatReport(r, st));
      const others = all.filter((s) => s.name !== name).map((s) => s.name);
      if (!args[0] && others.length) process.stdout.write(st.dim(`  other sweeps: ${others.join(', ')}\n`));
    }
    return 0;
  });
}
