/** Launch records built from the real scenario logs, and a benchmark result, for the ledger tests. */
import fs from 'node:fs';
import path from 'node:path';
import { recordFromReport } from '../../src/store/record.js';
import type { BenchResult, LaunchRecord } from '../../src/store/types.js';
import { analyzeBytes, SCENARIOS } from '../helpers.js';

export const HOST = 'gpu-a';

export const SCENARIO_FILES = [
  'glm5-cutlass-bench-then-shutdown.log',
  'glm5-relaunch-stuck-at-48pct.log',
  'glm5-silent-after-load-weight-end.log',
  'glm5-trtllm-oom-in-cuda-graph.log',
];

/** Every launch of every scenario, keyed `file#index` (index 1-based, as `runs` numbers them). */
export function scenarioRecords(now = 1_800_000_000): Map<string, LaunchRecord> {
  const out = new Map<string, LaunchRecord>();
  for (const name of SCENARIO_FILES) {
    const file = path.join(SCENARIOS, name);
    const report = analyzeBytes(fs.readFileSync(file));
    report.launches.forEach((rep, i) => {
      out.set(
        `${name}#${i + 1}`,
        recordFromReport(rep, { host: HOST, path: file, fileId: '2049:1234', now }),
      );
    });
  }
  return out;
}

export function benchResult(fingerprint: string, finishedAt: number | null = 1_771_474_300): BenchResult {
  const stats = { mean: 1, median: 1, p99: 2 };
  return {
    tool: 'sglang',
    backend: 'sglang',
    model: 'lukealonso/GLM-5-NVFP4',
    host: HOST,
    port: 8000,
    finishedAt,
    durationS: 60,
    completed: 200,
    maxConcurrency: 64,
    requestRate: null,
    requestTputReqS: 3.3,
    outputTokS: 880.5,
    totalTokS: 1700,
    inputTokS: 820,
    ttft: stats,
    tpot: stats,
    itl: stats,
    e2e: stats,
    fingerprint,
    source: '/tmp/bench.jsonl',
  };
}
