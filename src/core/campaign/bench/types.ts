/** What the benchmark parsers return before the CLI fingerprints a run (hashing stays out of the pure core). */
import type { BenchResult } from '../records.js';

/** A BenchResult without its fingerprint, plus the exact text of the run the fingerprint is computed from. */
export interface ParsedBench extends Omit<BenchResult, 'fingerprint'> {
  runText: string;
}

/** Nothing in the text is a benchmark result of a known tool. */
export class BenchParseError extends Error {
  constructor(
    readonly source: string,
    message: string,
  ) {
    super(message);
    this.name = 'BenchParseError';
  }
}
