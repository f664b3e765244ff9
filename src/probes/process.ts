/**
 * A server process seen through Linux /proc: alive, its tree, CPU time, listening ports. A server that
 * is loading weights or compiling shows CPU time moving long before its log or HTTP port says anything,
 * and its listening port tells which pid is the server. Entries of other users' processes that cannot
 * be read are skipped: the probe reports what it can see and never throws for it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import type { ProcessObservation } from '../core/verdict/observations.js';
import { looksLikeLaunch } from './launch-patterns.js';
import { matchServer, type ServerClaim, type ServerMatch, type TableProcess } from './server-identity.js';

export interface ProcOptions {
  /** Defaults to /proc; tests point it at a fake tree. */
  procRoot?: string;
}

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  /** Clock ticks: the process's own, and its waited-for children's. */
  utime: number;
  stime: number;
  cutime: number;
  cstime: number;
  /** Clock ticks after boot: orders processes by age. */
  starttime: number;
}

let clockTicks: Promise<number> | null = null;

/** USER_HZ, asked once: 100 on nearly every Linux, but not promised. */
function clkTck(): Promise<number> {
  clockTicks ??= new Promise((resolve) => {
    execFile('getconf', ['CLK_TCK'], { timeout: 1000 }, (err, stdout) => {
      const n = Number(String(stdout).trim());
      resolve(!err && Number.isFinite(n) && n > 0 ? n : 100);
    });
  });
  return clockTicks;
}

async function readText(path: string): Promise<string | null> {
  try {
    return await fs.readFile(path, 'utf8');
  } catch {
    return null;
  }
}

/** /proc/PID/stat; null when the process is gone or hidden. */
export function parseStat(text: string): ProcStat | null {
  // comm may hold spaces and parentheses (`(sglang::sched)`); it ends at the last ')'.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const rest = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // Fields from 3 (state); utime is field 14, starttime 22 (proc(5)).
  const f = (n: number) => Number(rest[n - 3]);
  const stat: ProcStat = {
    pid: Number(text.slice(0, open).trim()),
    comm: text.slice(open + 1, close),
    state: rest[0] ?? '?',
    ppid: f(4),
    utime: f(14),
    stime: f(15),
    cutime: f(16),
    cstime: f(17),
    starttime: f(22),
  };
  return Number.isFinite(stat.pid) && Number.isFinite(stat.ppid) ? stat : null;
}

export const gone = (s: ProcStat) => s.state === 'Z' || s.state === 'X';

async function listPids(procRoot: string): Promise<number[]> {
  try {
    return (await fs.readdir(procRoot)).filter((n) => /^\d+$/.test(n)).map(Number);
  } catch {
    return [];
  }
}

async function readStat(procRoot: string, pid: number): Promise<ProcStat | null> {
  const text = await readText(`${procRoot}/${pid}/stat`);
  return text === null ? null : parseStat(text);
}

/**
 * A reading of the whole process table serves every caller that comes while it is read, and a fleet's searches
 * for a second after: a fleet of targets in one process (`serve`, `ps`) reads /proc once per round, not once
 * per target — with 40 local targets searching for their servers, that was most of serve's CPU and garbage.
 */
const tables = new Map<string, { at: number; done: boolean; value: Promise<unknown> }>();

/** A reading still under way is always shared; a finished one for `ttlMs` (0: never). */
function shared<T>(key: string, ttlMs: number, read: () => Promise<T>): Promise<T> {
  const now = Date.now();
  const hit = tables.get(key);
  if (hit && (!hit.done || now - hit.at <= ttlMs)) return hit.value as Promise<T>;
  const entry = { at: now, done: false, value: read() as Promise<unknown> };
  tables.set(key, entry);
  entry.value.then(
    () => {
      entry.done = true;
      entry.at = Date.now();
    },
    // A failed read is never reused.
    () => tables.get(key) === entry && tables.delete(key),
  );
  return entry.value as Promise<T>;
}

/**
 * A probe of a known process wants the table as it is now (a child that just started, a port just opened):
 * it shares only a reading under way. So does a search, unless its caller accepts an older one (`shareMs`).
 */
const SHARE_MS = 0;

/** Every process's stat that can be read, by pid (a copy each caller may change). */
async function readAllStats(procRoot: string, ttlMs = SHARE_MS): Promise<Map<number, ProcStat>> {
  return new Map(await shared(`stats:${procRoot}`, ttlMs, () => readAllStatsNow(procRoot)));
}

async function readAllStatsNow(procRoot: string): Promise<Map<number, ProcStat>> {
  const pids = await listPids(procRoot);
  const stats = await Promise.all(pids.map((pid) => readStat(procRoot, pid)));
  const map = new Map<number, ProcStat>();
  for (const s of stats) if (s) map.set(s.pid, s);
  return map;
}

/** Live descendants of `root`, nearest first. */
export function descendants(root: number, stats: Map<number, ProcStat>): ProcStat[] {
  const kids = new Map<number, ProcStat[]>();
  for (const s of stats.values()) {
    if (gone(s)) continue;
    const list = kids.get(s.ppid);
    if (list) list.push(s);
    else kids.set(s.ppid, [s]);
  }
  const out: ProcStat[] = [];
  const queue = [root];
  const seen = new Set(queue);
  while (queue.length > 0) {
    for (const k of kids.get(queue.shift()!) ?? []) {
      if (seen.has(k.pid)) continue;
      seen.add(k.pid);
      out.push(k);
      queue.push(k.pid);
    }
  }
  return out;
}

async function readCmdline(procRoot: string, pid: number): Promise<string | null> {
  const raw = await readText(`${procRoot}/${pid}/cmdline`);
  if (raw === null) return null;
  const text = raw.replace(/\0+$/, '').split('\0').join(' ');
  // Kernel threads and zombies have none.
  return text === '' ? null : text;
}

/** Socket inodes among a process's open files; empty when they belong to another user. */
async function socketInodes(procRoot: string, pid: number): Promise<string[]> {
  let fds: string[];
  try {
    fds = await fs.readdir(`${procRoot}/${pid}/fd`);
  } catch {
    return [];
  }
  const links = await Promise.all(
    fds.map((fd) => fs.readlink(`${procRoot}/${pid}/fd/${fd}`).catch(() => '')),
  );
  const out: string[] = [];
  for (const l of links) {
    const m = /^socket:\[(\d+)\]$/.exec(l);
    if (m) out.push(m[1]!);
  }
  return out;
}

/** Listening TCP sockets (state 0A) of one network namespace's tables: inode → port. */
export function parseListening(table: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    if (f.length < 10 || f[3] !== '0A') continue;
    const port = Number.parseInt(f[1]!.split(':')[1] ?? '', 16);
    if (Number.isFinite(port)) out.set(f[9]!, port);
  }
  return out;
}

/**
 * Listening sockets as the process at `netPid` sees them: /proc/PID/net is that process's network
 * namespace, which matters when the server runs in a container with its own. Falls back to ours.
 */
async function listeningTable(
  procRoot: string,
  netPid: number | null,
  ttlMs = SHARE_MS,
): Promise<Map<string, number>> {
  return shared(`net:${procRoot}:${netPid}`, ttlMs, () => listeningTableNow(procRoot, netPid));
}

async function listeningTableNow(procRoot: string, netPid: number | null): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const file of ['tcp', 'tcp6']) {
    const text =
      (netPid !== null ? await readText(`${procRoot}/${netPid}/net/${file}`) : null) ??
      (await readText(`${procRoot}/net/${file}`));
    if (text !== null) for (const [inode, port] of parseListening(text)) out.set(inode, port);
  }
  return out;
}

/** What /proc shows of `pid` and its descendants now. exitCode/signal stay null: we did not start it. */
export async function probeProcess(pid: number, opts: ProcOptions = {}): Promise<ProcessObservation> {
  const procRoot = opts.procRoot ?? '/proc';
  const at = Date.now() / 1000;
  const none: ProcessObservation = {
    pid,
    alive: false,
    exitCode: null,
    signal: null,
    cmdline: null,
    cpuSeconds: null,
    children: [],
    listening: [],
    at,
  };
  const own = await readStat(procRoot, pid);
  if (!own || gone(own)) return { ...none, cmdline: own ? await readCmdline(procRoot, pid) : null };
  const stats = await readAllStats(procRoot);
  stats.set(pid, own);
  const tree = descendants(pid, stats);
  const members = [own, ...tree];
  // cutime/cstime keep the time of children that already exited and were waited for (a compile
  // worker, a download helper), so the total does not drop when one ends: the live verdict reads a
  // rise as work, and a drop would hide it.
  const ticks = members.reduce((sum, s) => sum + s.utime + s.stime + s.cutime + s.cstime, 0);
  const [hz, cmdline, table, inodes] = await Promise.all([
    clkTck(),
    readCmdline(procRoot, pid),
    listeningTable(procRoot, pid),
    Promise.all(members.map((s) => socketInodes(procRoot, s.pid))),
  ]);
  const ports = new Set<number>();
  for (const inode of inodes.flat()) {
    const port = table.get(inode);
    if (port !== undefined) ports.add(port);
  }
  return {
    ...none,
    alive: true,
    cmdline,
    cpuSeconds: Number.isFinite(ticks) ? ticks / hz : null,
    children: tree.map((s) => ({ pid: s.pid, name: s.comm })).sort((a, b) => a.pid - b.pid),
    listening: [...ports].sort((a, b) => a - b),
    at,
  };
}

export { looksLikeLaunch } from './launch-patterns.js';

// Oldest first: a launcher's workers inherit both its listening socket and its command line, and the
// launcher is the one whose tree holds them all.
export const byAge = (a: ProcStat, b: ProcStat) => a.starttime - b.starttime || a.pid - b.pid;

/**
 * The launch's server by evidence (server-identity.ts has the rules): a process listening on the claimed port,
 * one whose pid the log names, or one whose command line carries the launch's model and port. Never "the first
 * that looks like the engine". Our own process never counts.
 */
export async function identifyServer(
  claim: ServerClaim & {
    procRoot?: string;
    /**
     * How old (ms) a reading of the process table may be: a fleet's targets in one process (`serve`, `ps`)
     * search with 1000 and share one reading per round. Default 0: only a reading under way is shared.
     */
    shareMs?: number;
  },
): Promise<ServerMatch> {
  const procRoot = claim.procRoot ?? '/proc';
  const shareMs = claim.shareMs ?? 0;
  let stats = [...(await readAllStats(procRoot, shareMs)).values()]
    .filter((s) => !gone(s) && s.pid !== process.pid)
    .sort(byAge);
  const holders = new Set<number>();
  if (claim.port !== undefined) {
    const table = await listeningTable(procRoot, null);
    const wanted = new Set([...table].filter(([, port]) => port === claim.port).map(([inode]) => inode));
    if (wanted.size > 0) {
      // The port is open now: its holder may be younger than the shared reading, so one made now decides.
      stats = [...(await readAllStats(procRoot)).values()]
        .filter((s) => !gone(s) && s.pid !== process.pid)
        .sort(byAge);
      const held = await Promise.all(stats.map((s) => socketInodes(procRoot, s.pid)));
      held.forEach((inodes, i) => {
        if (inodes.some((n) => wanted.has(n))) holders.add(stats[i]!.pid);
      });
    }
  }
  // Before the port opens (weights still loading) the command line is all there is to go on.
  const all = await shared(`cmd:${procRoot}`, shareMs, async () => {
    const m = new Map<number, string | null>();
    const pids = [...(await readAllStats(procRoot, shareMs)).keys()];
    await Promise.all(pids.map(async (pid) => m.set(pid, await readCmdline(procRoot, pid))));
    return m;
  });
  const cmdOf = async (pid: number) => (all.has(pid) ? (all.get(pid) ?? null) : readCmdline(procRoot, pid));
  const rows: TableProcess[] = await Promise.all(
    stats.map(async (s) => ({
      pid: s.pid,
      ppid: s.ppid,
      starttime: s.starttime,
      cmdline: await cmdOf(s.pid),
      listening: holders.has(s.pid) && claim.port !== undefined ? [claim.port] : null,
    })),
  );
  // The look-alikes' own ports say why they are not this launch's (`listens on 30104, not 8000`).
  const net = await listeningTable(procRoot, null, shareMs);
  await Promise.all(
    rows
      .filter(
        (r) => r.listening === null && r.cmdline !== null && looksLikeLaunch(r.cmdline, claim.engine ?? null),
      )
      .map(async (r) => {
        const ports = new Set<number>();
        for (const inode of await socketInodes(procRoot, r.pid)) {
          const port = net.get(inode);
          if (port !== undefined) ports.add(port);
        }
        r.listening = [...ports].sort((a, b) => a - b);
      }),
  );
  const found = matchServer(claim, rows);
  if (found.pid === null) return found;
  // A reading shared from earlier may name a process that has exited since (or whose pid was reused):
  // the one found must still be there, the same process, or the session would call the server dead.
  const was = stats.find((s) => s.pid === found.pid)!;
  const now = await readStat(procRoot, found.pid);
  return now && !gone(now) && now.starttime === was.starttime
    ? found
    : { pid: null, why: `pid ${found.pid} exited while it was being looked at`, candidates: [] };
}

/** The pid alone (tests, callers that only need it): null when none is proven or several are. */
export async function findServerPid(opts: Parameters<typeof identifyServer>[0]): Promise<number | null> {
  return (await identifyServer(opts)).pid;
}
