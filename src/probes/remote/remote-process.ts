/**
 * The process probe for a server on another machine: one ssh command runs a fixed POSIX sh script that
 * prints the remote /proc files the local probe would read, in sections, and they are parsed here with the
 * local probe's own parsers. One round trip per probe (not one per file), few forks remotely (`cat` reads
 * every stat at once: each stat line starts with its pid), and the pid is passed as "$1", never as code.
 */
import type { ProcessObservation } from '../../core/verdict/observations.js';
import { byAge, descendants, gone, type ProcStat, parseListening, parseStat } from '../process.js';
import { matchServer, type ServerClaim, type ServerMatch, type TableProcess } from '../server-identity.js';
import type { RemoteHost } from '../types.js';

// $1: the pid to probe, or '' to find the server. $2: 'all' prints every command line (finding by engine),
// all from one grep (`PID/cmdline:ARGS` lines) rather than one process per pid: a GPU box runs thousands.
// NUL separators in cmdline become \001 so the output stays line-based.
const SCRIPT = `cd /proc 2>/dev/null || exit 0
printf '@hz\\n'; getconf CLK_TCK 2>/dev/null
printf '@stat\\n'; cat [0-9]*/stat 2>/dev/null; echo
for f in tcp tcp6; do
  printf '@net\\n'
  { [ -n "$1" ] && cat "$1/net/$f" 2>/dev/null; } || cat "net/$f" 2>/dev/null
done
printf '@fd\\n'; ls -l [0-9]*/fd/ 2>/dev/null | grep -e '^[0-9]*/fd' -e 'socket:'
if [ "$2" = all ]; then
  printf '\\n@cmdlines\\n'; grep -a -H '' [0-9]*/cmdline 2>/dev/null | tr '\\000' '\\001'
elif [ -n "$1" ]; then
  printf '\\n@cmdline %s\\n' "$1"; tr '\\000' '\\001' < "$1/cmdline" 2>/dev/null
fi
printf '\\n@end\\n'`;

export interface Snapshot {
  hz: number;
  stats: Map<number, ProcStat>;
  /** inode → port of listening TCP sockets. */
  listening: Map<string, number>;
  /** pid → socket inodes among its open files. */
  sockets: Map<number, string[]>;
  cmdlines: Map<number, string | null>;
}

/** Parses the script's sections (exported for tests). */
export function parseSnapshot(text: string): Snapshot {
  const snap: Snapshot = {
    hz: 100,
    stats: new Map(),
    listening: new Map(),
    sockets: new Map(),
    cmdlines: new Map(),
  };
  let section = '';
  let fdPid: number | null = null;
  let cmdPid: number | null = null;
  let net = '';
  const flushNet = () => {
    for (const [inode, port] of parseListening(net)) snap.listening.set(inode, port);
    net = '';
  };
  for (const line of text.split('\n')) {
    const head = /^@(hz|stat|net|fd|cmdlines|cmdline|end)(?: (\d+))?$/.exec(line);
    if (head) {
      if (section === 'net') flushNet();
      section = head[1]!;
      cmdPid = head[2] ? Number(head[2]) : null;
      continue;
    }
    if (section === 'hz' && /^\d+$/.test(line.trim())) snap.hz = Number(line.trim()) || 100;
    else if (section === 'stat') {
      const s = line.trim() ? parseStat(line) : null;
      if (s) snap.stats.set(s.pid, s);
    } else if (section === 'net') net += `${line}\n`;
    else if (section === 'fd') {
      const dir = /^(\d+)\/fd\/?:$/.exec(line);
      if (dir) fdPid = Number(dir[1]);
      const sock = / -> socket:\[(\d+)\]$/.exec(line);
      if (sock && fdPid !== null) snap.sockets.set(fdPid, [...(snap.sockets.get(fdPid) ?? []), sock[1]!]);
    } else if (section === 'cmdlines') {
      const m = /^(\d+)\/cmdline:(.*)$/.exec(line);
      if (m)
        snap.cmdlines.set(
          Number(m[1]),
          m[2]!
            .replace(/\x01+$/, '')
            .split('\x01')
            .join(' ') || null,
        );
    } else if (section === 'cmdline' && cmdPid !== null && !snap.cmdlines.has(cmdPid)) {
      const c = line
        .replace(/\x01+$/, '')
        .split('\x01')
        .join(' ');
      snap.cmdlines.set(cmdPid, c === '' ? null : c);
    }
  }
  return snap;
}

async function snapshot(session: RemoteHost, pid: number | null, all: boolean, timeoutMs: number) {
  const res = await session.run(
    ['sh', '-c', SCRIPT, 'firedup', pid === null ? '' : String(pid), all ? 'all' : ''],
    timeoutMs,
  );
  // A timeout or a dropped connection tells nothing about the process: the caller keeps its last view.
  if (res.code !== 0) throw session.classify(res, '/proc') ?? new Error('remote /proc unreadable');
  const text = res.stdout.toString('utf8');
  if (!text.includes('@end')) throw new Error('remote /proc listing cut short');
  return parseSnapshot(text);
}

/** What the remote /proc shows of `pid` and its descendants: the same observation as the local probe. */
export async function probeRemoteProcess(
  session: RemoteHost,
  pid: number,
  timeoutMs = 10_000,
): Promise<ProcessObservation> {
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`bad pid ${pid}`);
  const snap = await snapshot(session, pid, false, timeoutMs);
  const at = Date.now() / 1000;
  const own = snap.stats.get(pid);
  const none: ProcessObservation = {
    pid,
    alive: false,
    exitCode: null,
    signal: null,
    cmdline: own ? (snap.cmdlines.get(pid) ?? null) : null,
    cpuSeconds: null,
    children: [],
    listening: [],
    at,
  };
  if (!own || gone(own)) return none;
  const tree = descendants(pid, snap.stats);
  const members = [own, ...tree];
  // Same sum as the local probe: cutime/cstime keep waited-for children's time so the total never drops.
  const ticks = members.reduce((sum, s) => sum + s.utime + s.stime + s.cutime + s.cstime, 0);
  const ports = new Set<number>();
  for (const m of members)
    for (const inode of snap.sockets.get(m.pid) ?? []) {
      const port = snap.listening.get(inode);
      if (port !== undefined) ports.add(port);
    }
  return {
    ...none,
    alive: true,
    cpuSeconds: Number.isFinite(ticks) ? ticks / snap.hz : null,
    children: tree.map((s) => ({ pid: s.pid, name: s.comm })).sort((a, b) => a.pid - b.pid),
    listening: [...ports].sort((a, b) => a - b),
  };
}

/** The remote server, by the same rules as the local `identifyServer` (server-identity.ts). */
export async function findRemoteServerPid(
  session: RemoteHost,
  claim: ServerClaim,
  timeoutMs = 10_000,
): Promise<ServerMatch> {
  const snap = await snapshot(session, null, true, timeoutMs);
  const stats = [...snap.stats.values()].filter((s) => !gone(s)).sort(byAge);
  const rows: TableProcess[] = stats.map((s) => {
    const ports = new Set<number>();
    for (const inode of snap.sockets.get(s.pid) ?? []) {
      const port = snap.listening.get(inode);
      if (port !== undefined) ports.add(port);
    }
    return {
      pid: s.pid,
      ppid: s.ppid,
      starttime: s.starttime,
      cmdline: snap.cmdlines.get(s.pid) ?? null,
      listening: [...ports].sort((a, b) => a - b),
    };
  });
  return matchServer(claim, rows);
}
