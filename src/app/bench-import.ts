/** Importing a benchmark result into the ledger: its identity, where it ran, and the launch's clock. */
import { createHash } from 'node:crypto';
import type { ParsedBench } from '../core/bench/index.js';
import type { BenchResult } from '../core/records.js';

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
