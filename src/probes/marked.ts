/**
 * Processes found by a marker in their environment (`FIREDUP_SWEEP_POINT=<id>`), for stopping a sweep point's
 * server with everything it started: a worker that calls setsid leaves the server's process group (a group
 * signal misses it) and, once its parent is gone, its tree too; its environment still carries the marker.
 * Linux /proc only; elsewhere, and for processes whose environment cannot be read (another user's), nothing is
 * found. Synchronous, so that an exit handler can use it.
 */
import fs from 'node:fs';
import { gone, parseStat } from './process.js';

export const MARKER_ENV = 'FIREDUP_SWEEP_POINT';

/** The live processes whose environment holds `MARKER_ENV=marker` (this process left out). */
export function markedPids(marker: string, procRoot = '/proc'): number[] {
  const needle = Buffer.from(`\0${MARKER_ENV}=${marker}\0`);
  const first = Buffer.from(`${MARKER_ENV}=${marker}\0`);
  let names: string[];
  try {
    names = fs.readdirSync(procRoot);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n) || Number(n) === process.pid) continue;
    let env: Buffer;
    try {
      env = fs.readFileSync(`${procRoot}/${n}/environ`);
    } catch {
      continue;
    }
    if (env.includes(needle) || env.subarray(0, first.length).equals(first)) {
      const st = statOf(Number(n), procRoot);
      if (st && !gone(st)) out.push(Number(n));
    }
  }
  return out.sort((a, b) => a - b);
}

function statOf(pid: number, procRoot: string) {
  try {
    return parseStat(fs.readFileSync(`${procRoot}/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** The process's start (clock ticks after boot, /proc/PID/stat field 22): with the pid, who it is. Null: gone. */
export function startTimeOf(pid: number, procRoot = '/proc'): number | null {
  const st = statOf(pid, procRoot);
  return st && !gone(st) ? st.starttime : null;
}

/** Whether `pid` is still the process that started at `startTime` (not gone, not a reused pid). */
export function sameProcess(pid: number, startTime: number | null, procRoot = '/proc'): boolean {
  if (!fs.existsSync(procRoot)) {
    // No /proc (macOS): alive is all that can be told.
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  const now = startTimeOf(pid, procRoot);
  return now !== null && (startTime === null || now === startTime);
}
