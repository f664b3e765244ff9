/**
 * `firedup ps`: one line per target of firedup.toml — like `kubectl get pods` — from the same per-target
 * reading as `serve` (src/app/fleet.ts). Once: every target is started at once and the table printed when
 * each has a first verdict or its host has failed to answer. `--watch`: the table redrawn in place.
 */
import fs from 'node:fs';
import { Fleet, type FleetRow, fleetExitCode } from '../app/fleet.js';
import { loadServeConfig } from '../app/fleet-config.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { targetSpecs } from './fleet-specs.js';
import { fmtDuration } from './format.js';
import { sshFlags } from './read.js';
import { RECORD_FLAGS, recordingLedger } from './recording.js';
import { colorWanted, makeStyle, type Style } from './style.js';
import { type Cell, renderTable } from './table.js';
import { LiveView } from './view.js';
import { budgetScale, quitKeys } from './watch.js';
import { outputWidth, wrapText } from './width.js';

export const FLAGS: Record<string, FlagSpec> = {
  config: { type: 'string' },
  json: { type: 'boolean', alias: 'j' },
  watch: { type: 'boolean', alias: 'w' },
  'no-gpu': { type: 'boolean' },
  'connect-timeout': { type: 'string' },
  'ssh-config': { type: 'string' },
  'ssh-option': { type: 'string', multi: true },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', alias: 'h' },
  ...RECORD_FLAGS,
};

/** The longest a one-shot `ps` waits for its slowest target's first verdict. */
const SETTLE_MS = 15_000;
/** How often `--watch` redraws. */
const REFRESH_MS = 1000;

const HEADER = ['NAME', 'HOST', 'ENGINE', 'MODEL', 'STATE', 'PHASE', 'PROGRESS', 'AGE', 'TOK/S', 'FAILURE'];

/** kubectl's ages: the largest unit, two for short spans (`45s`, `3m12s`, `2h5m`, `3d`). */
export function fmtAge(s: number | null): string {
  if (s === null) return '-';
  if (s < 3600) return fmtDuration(s).replace(/^(\d+m)00s$/, '$1');
  if (s < 86400) return fmtDuration(s).replace(/^(\d+h)00m$/, '$1');
  return `${Math.floor(s / 86400)}d`;
}

function stateCell(r: FleetRow, st: Style): Cell {
  const paint =
    r.state === 'ready' || r.state === 'serving' || r.state === 'idle'
      ? st.green
      : r.state === 'crashed' || r.state === 'dead' || r.state === 'unreachable'
        ? st.red
        : r.state === 'stalled'
          ? st.yellow
          : r.state === 'waiting' || r.state === 'exited'
            ? st.dim
            : st.cyan;
  return { text: r.state, paint };
}

/**
 * A name from a config file or a log (a target's name, a host, a model) as text a terminal shows and does not
 * obey: control characters (an escape sequence that would clear the screen or retitle the window) as `\xNN`.
 */
export function printable(s: string): string {
  return s.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** The table, then one line per host that did not answer (why). */
/** docker's word on a container target: `running`, `running ↻3`, `exited 137 OOMKilled`, `running unhealthy`. */
export function containerCell(r: FleetRow): string {
  const c = r.container;
  if (!c) return '-';
  const exit = c.state === 'running' || c.exitCode === null ? '' : ` ${c.exitCode}`;
  return `${c.state}${exit}${c.oomKilled ? ' OOMKilled' : ''}${c.restarts ? ` ↻${c.restarts}` : ''}${c.health && c.health !== 'healthy' ? ` ${c.health}` : ''}`;
}

export function renderPs(rows: readonly FleetRow[], st: Style, width?: number | null): string[] {
  // The CONTAINER column only where a target is a container: a fleet of log files keeps its table.
  const containers = rows.some((r) => r.container);
  const header = containers ? [...HEADER, 'CONTAINER'] : HEADER;
  const body = rows.map((r) => [
    printable(r.name),
    printable(r.nodes ? `${r.host} ×${r.nodes.length}` : r.host),
    r.engine ?? '-',
    r.model ? printable(r.model) : '-',
    stateCell(r, st),
    r.phase ?? '-',
    r.progress ? `${r.progress.done}/${r.progress.total} ${Math.round(r.progress.ratio * 100)}%` : '-',
    fmtAge(r.age),
    r.tokS === null ? '-' : String(Math.round(r.tokS * 10) / 10),
    r.failureClass ?? '-',
    ...(containers ? [containerCell(r)] : []),
  ]);
  const dropped: string[] = [];
  const lines = renderTable(header, body, {
    st,
    indent: '',
    width,
    right: [false, false, false, false, false, false, true, true, true, false, false],
    shrink: {
      MODEL: { min: 8, soft: 24, keep: 'end' },
      NAME: { min: 8, soft: 16 },
      HOST: { min: 6, soft: 12 },
    },
    drop: ['ENGINE', 'TOK/S', 'AGE', 'HOST', 'PHASE'],
    dropped,
  });
  const notes = new Map<string, string>();
  for (const r of rows) if (r.state === 'unreachable' && !notes.has(r.host)) notes.set(r.host, r.why);
  // The notes wrap rather than being cut: ssh's reason is the point of them.
  const limit = width === undefined ? outputWidth() : width;
  const wrap = (text: string, paint: (s: string) => string) =>
    (limit === null ? [text] : wrapText(text, limit - 1)).map(paint);
  // every host that did not answer, each named (ssh's reason does not always say which host it is about)
  for (const [host, why] of notes)
    lines.push(...wrap(`unreachable: ${printable(why.includes(host) ? why : `${host}: ${why}`)}`, st.red));
  // A multi-node target is one row; its nodes, the head and the node holding it back, on a line under it.
  for (const r of rows) {
    if (!r.nodes) continue;
    const each = r.nodes.map(
      (n) =>
        `${n.node} ${n.state}${n.phase && n.state !== 'serving' ? ` in ${n.phase}` : ''}${n.head ? ' (head)' : ''}${n.culprit ? ' ← culprit' : ''}`,
    );
    lines.push(...wrap(printable(`${r.name}: ${each.join(', ')}`), st.dim));
  }
  if (dropped.length)
    lines.push(...wrap(`(${dropped.join(', ')} left out: widen the terminal to see them)`, st.dim));
  return lines;
}

/** `--json`: the stable shape (docs/live.md, "A fleet"). */
function jsonOf(rows: readonly FleetRow[]): string {
  return JSON.stringify({ at: new Date().toISOString(), exitCode: fleetExitCode(rows), targets: rows });
}

function connectTimeout(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(String(v)) || n < 1 || n > 600)
    throw new UsageError(`ps: --connect-timeout ${v}: whole seconds from 1 to 600`);
  return n;
}

export async function psCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS, 'ps');
  if (positionals.length)
    throw new UsageError(`ps: unexpected ${positionals[0]}: the targets come from --config firedup.toml`);
  const file = typeof flags.config === 'string' ? flags.config : 'firedup.toml';
  if (flags.config === undefined && !fs.existsSync(file))
    throw new UsageError('ps: no firedup.toml here: name the fleet file with --config FILE');
  const cfg = loadServeConfig(file);
  if (cfg.targets.length + cfg.nodeTargets.length === 0)
    throw new UsageError(`${file}: no [[target]] table: add one with log = "path or user@host:/path"`);
  const specs = targetSpecs([], cfg, undefined);
  const ssh = sshFlags(flags);
  if (ssh.config === undefined && cfg.sshConfig) ssh.config = cfg.sshConfig;
  if (!ssh.options?.length && cfg.sshOptions) ssh.options = cfg.sshOptions;
  const timeoutSec = connectTimeout(flags['connect-timeout']);
  const ledger = await recordingLedger(flags, cfg.ledger);
  const fleet = new Fleet(specs, {
    ledger,
    ssh,
    gpu: flags['no-gpu'] ? false : undefined,
    budgetScale: budgetScale(),
    connectTimeoutSec: timeoutSec,
  });
  const json = Boolean(flags.json);
  const st = makeStyle(!json && colorWanted(process.stdout, Boolean(flags['no-color'])));
  fleet.start((t, e) => process.stderr.write(`firedup ps: ${t.spec.name}: ${e.message}\n`));
  try {
    if (!flags.watch) {
      await fleet.settled(SETTLE_MS);
      const rows = fleet.rows();
      process.stdout.write(json ? `${jsonOf(rows)}\n` : `${renderPs(rows, st).join('\n')}\n`);
      return fleetExitCode(rows);
    }
    return await watchFleet(fleet, json, st);
  } finally {
    // Closing ssh masters can hang on a dead network: a few seconds at most.
    await Promise.race([fleet.stop().catch(() => {}), new Promise((r) => setTimeout(r, 3000).unref())]);
    await ledger?.close();
    // The table is out: an ssh client still closing its connection (seen to linger 30 s) holds no one up. The
    // timer keeps nothing alive itself; it fires only if something else still does.
    setTimeout(() => process.exit(), 500).unref();
  }
}

/**
 * Redraws until q or Ctrl-C: in place on a terminal; otherwise the table again (or a JSON line) each time a
 * row changes, so a pipe gets a log of changes rather than a screenful a second.
 */
async function watchFleet(fleet: Fleet, json: boolean, st: Style): Promise<number> {
  const view = !json && process.stdout.isTTY ? new LiveView(process.stdout) : null;
  let last = '';
  const draw = () => {
    const rows = fleet.rows();
    if (view) {
      view.draw([st.dim(`${new Date().toISOString().slice(11, 19)}  q to quit`), ...renderPs(rows, st)]);
      return;
    }
    // Ages and the reasons' counters (`no batch for 358 s`) move every second: a change is one of the rest.
    const key = JSON.stringify(rows.map((r) => ({ ...r, age: null, why: null })));
    if (key === last) return;
    last = key;
    process.stdout.write(json ? `${jsonOf(rows)}\n` : `${renderPs(rows, st).join('\n')}\n\n`);
  };
  return await new Promise<number>((resolve) => {
    let unkeys = () => {};
    const timer = setInterval(draw, REFRESH_MS);
    const finish = (code: number) => {
      clearInterval(timer);
      unkeys();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      draw();
      view?.close();
      resolve(code);
    };
    const onSignal = () => finish(130);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    if (view) unkeys = quitKeys(finish);
    draw();
  });
}
