/** Launch and bench records built from the scenario logs and bench fixtures, as the ledger would hold them. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ParsedBench } from '../src/core/campaign/bench/index.js';
import { recordFromReport } from '../src/store/record.js';
import type { BenchRecord, LaunchRecord } from '../src/store/types.js';
import { analyzeText, SCENARIOS } from './helpers.js';

export const NOW = Date.UTC(2026, 1, 21) / 1000;

/** Every launch of a scenario log, recorded as if read on `host`. */
export function scenarioRecords(name: string, host = 'localhost'): LaunchRecord[] {
  const file = path.join(SCENARIOS, name);
  const report = analyzeText(fs.readFileSync(file, 'utf8'));
  return report.launches.map((l) => recordFromReport(l, { host, path: file, fileId: null, now: NOW }));
}

let nextId = 1;

export function benchRecord(p: ParsedBench, launchId: string, over: Partial<BenchRecord> = {}): BenchRecord {
  const { runText, ...rest } = p;
  const fingerprint = createHash('sha256').update(runText).digest('hex').slice(0, 16);
  return { ...rest, fingerprint, id: nextId++, launchId, importedAt: NOW, ...over };
}
