/**
 * The same log read through the wrappers real deployments put around it must give the same reading: the
 * engine's lines are the same lines. Every real log of the corpus is wrapped line by line the way a
 * Kubernetes log stream (and the runtime's file under /var/log/pods, and `kubectl logs --prefix`), docker
 * compose, Docker's json-file, journald (both formats), Slurm's `srun --label`, moreutils' `ts`, an
 * application's own logger, a multi-host log collector and a CI runner print it, and read again (issue 10, cause 1).
 * Then through gutters no rule names (pdsh, stern, a log viewer's export, a Markdown code block, line numbers), which the
 * analyzer learns from the head of the file.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { AnalysisReport } from '../../../src/core/reading/report.js';
import { analyzeText, SHARED } from '../../helpers.js';

const two = (n: number) => String(n % 60).padStart(2, '0');
const WRAPPERS: Record<string, (line: string, i: number) => string> = {
  kubectl: (l, i) => `2026-03-01T10:${two(Math.floor(i / 60))}:${two(i)}.123456789Z ${l}`,
  compose: (l) => `inference-server-1  | ${l}`,
  journald: (l, i) => `Mar 01 10:00:${two(i)} gpu-node-3 python3[4242]: ${l}`,
  'app logger': (l, i) => `2026-03-01 10:00:${two(i)},123 - serving.supervisor - INFO - ${l}`,
  collector: (l, i) => `[2026-03-01T10:00:${two(i)}Z] gpu-node-3 >> ${l}`,
  'CI runner': (l, i) => `2026-03-01T10:00:${two(i)}.1234567Z ${l}`,
  'container runtime file': (l, i) =>
    `2026-03-01T10:${two(Math.floor(i / 60))}:${two(i)}.123456789Z ${i % 3 ? 'stdout' : 'stderr'} F ${l}`,
  'kubectl --prefix': (l) => `[pod/inference-server-0/engine] ${l}`,
  'Docker json-file': (l, i) =>
    JSON.stringify({ log: `${l}\n`, stream: 'stderr', time: `2026-03-01T10:00:${two(i)}.123456789Z` }),
  'journalctl -o short-iso': (l, i) => `2026-03-01T10:00:${two(i)}+0000 gpu-node-3 python3[4242]: ${l}`,
  'journalctl, no host field': (l, i) => `2026-03-01T10:00:${two(i)}+02:00 llm.server[4242]: ${l}`,
  'srun --label': (l, i) => `${String(i % 16).padStart(2)}: ${l}`,
  'moreutils ts': (l, i) => `Mar 01 10:00:${two(i)} ${l}`,
  // Gutters no rule names, found from the head of the file (core/lines/gutter.ts):
  'pdsh, two hosts': (l, i) => `gpu-node-${i % 2 ? 7 : 12}: ${l}`,
  'stern, one pod': (l) => `inference-server-0 engine ${l}`,
  "a log viewer's time column": (l, i) => `2026-03-01 10:00:${two(i)}.123\t${l}`,
  'a Markdown code block': (l) => `    ${l}`,
  'cat -n': (l, i) => `${String(i + 1).padStart(6)}\t${l}`,
  'grep -n': (l, i) => `${i + 1}:${l}`,
};

const reading = (r: AnalysisReport) => {
  const l = r.launches.at(-1);
  return JSON.stringify([r.engine, r.launches.length, l?.outcome, l?.phase, l?.failure?.class ?? null]);
};

describe('wrapper invariance on the real corpus', () => {
  const cases: Array<{ name: string; text: string }> = [];
  for (const dir of ['sglang', 'vllm', 'extra', 'recent', 'full']) {
    const d = path.join(SHARED, 'corpus', dir);
    for (const f of fs.readdirSync(d).filter((x) => x.endsWith('.log')))
      cases.push({ name: `${dir}/${f}`, text: fs.readFileSync(path.join(d, f), 'utf8') });
  }
  const plain = new Map(cases.map((c) => [c.name, reading(analyzeText(c.text))]));

  for (const [name, wrap] of Object.entries(WRAPPERS)) {
    it(`${name}: the same reading for ≥ 98 % of the logs`, () => {
      const differ: string[] = [];
      for (const c of cases) {
        const lines = c.text.split('\n');
        const wrapped = lines.map((l, i) => (i === lines.length - 1 && l === '' ? l : wrap(l, i))).join('\n');
        const got = reading(analyzeText(wrapped));
        if (got !== plain.get(c.name)) differ.push(`${c.name}: ${plain.get(c.name)} → ${got}`);
      }
      assert.ok(
        differ.length <= cases.length * 0.02,
        `${differ.length} of ${cases.length} differ:\n${differ.join('\n')}`,
      );
    });
  }
});
