/** Importing a benchmark result into the ledger: its identity, where it ran, and the launch's clock. */
import { createHash } from 'node:crypto';
import type { ParsedBench } from '../core/campaign/bench/index.js';
import type { BenchRecord, BenchResult, LaunchRecord } from '../core/campaign/records.js';
import type { LedgerStore } from '../store/ledger-store.js';

/** Names that mean "this machine": a bench run against them ran against a server here. */
export const LOCAL = new Set(['localhost', '127.0.0.1', '0.0.0.0', '::1', '::', '[::1]']);

export function fingerprinted(p: ParsedBench): BenchResult {
  const { runText, ...rest } = p;
  return { ...rest, fingerprint: createHash('sha256').update(runText).digest('hex').slice(0, 16) };
}

/** An epoch instant as the logs' wall time written as UTC (LaunchReport.startTs), this machine's zone. */
export function wallOf(epochS: number): number {
  return epochS - new Date(epochS * 1000).getTimezoneOffset() * 60;
}

/** A result placed in time and space: the launch serving there then is the one it measured. */
export interface Placed {
  result: BenchResult;
  /** The moment the launch must have been serving: the run's middle when its duration is known. */
  at: number | null;
  fromFileTime: boolean;
  host: string;
  port: number | null;
}

/** Where and when a result ran: its own date (else the file's mtime), its host (`--host`, else its own), port. */
export function place(
  r: BenchResult,
  mtimeWall: number,
  flags: { host?: unknown },
  port: number | null,
): Placed {
  const fromFileTime = r.finishedAt === null;
  const result = fromFileTime ? { ...r, finishedAt: mtimeWall } : r;
  const end = result.finishedAt!;
  const at = result.durationS !== null && !fromFileTime ? end - result.durationS / 2 : end;
  const host =
    typeof flags.host === 'string'
      ? flags.host
      : r.host && !LOCAL.has(r.host.toLowerCase())
        ? r.host
        : 'localhost';
  return { result, at, fromFileTime, host, port: port ?? r.port };
}

export interface Attached {
  p: Placed;
  launch: LaunchRecord;
  record: BenchRecord;
  /** False when the same result was attached before (its fingerprint). */
  added: boolean;
}

/** Attaches each result to `forced`, else to the launch serving at its host and port then; the rest are unmatched. */
export async function attachBenches(
  ledger: LedgerStore,
  placed: Placed[],
  forced: LaunchRecord | null,
): Promise<{ done: Attached[]; unmatched: Array<Placed & { kept: BenchRecord }> }> {
  const done: Array<{ p: Placed; launch: LaunchRecord; record: BenchRecord; added: boolean }> = [];
  const unmatched: Array<Placed & { kept: BenchRecord }> = [];
  for (const p of placed) {
    const launch = forced ?? (p.at === null ? null : await ledger.servingAt(p.host, p.port, p.at));
    if (!launch) {
      // Kept, not dropped: `bench list` shows it with why, `bench attach` gives it its launch.
      const { record } = await ledger.keepUnattached(p.result, unmatchedWhy(p));
      unmatched.push({ ...p, kept: record });
      continue;
    }
    const { record, added } = await ledger.addBench(launch.id, p.result);
    done.push({ p, launch, record, added });
  }
  return { done, unmatched };
}

/** Why no launch took a result: where and when it ran, as the ledger was asked. */
export function unmatchedWhy(p: Placed): string {
  const at =
    p.at === null
      ? 'at an unknown time'
      : `at ${new Date(p.at * 1000).toISOString().slice(0, 19)} (log time)`;
  return `no launch serving on ${p.host}${p.port ? `:${p.port}` : ''} ${at}`;
}
