import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LogAnalyzer } from '../src/core/reading/analyzer.js';
import type { AnalysisReport } from '../src/core/reading/report.js';

/** The compiled tree the tests run from (dist/, or another --outDir). */
export const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The repository root (tests run from dist/test/...). */
export const ROOT = path.resolve(DIST, '..');
/** Real logs (../shared's scenarios and corpus), copied into the repo so a fresh clone tests the same data. */
export const SHARED = path.join(ROOT, 'test', 'fixtures');
/** The command as built in this tree (the same code as bin/firedup.js runs from dist/). */
export const BIN = path.join(DIST, 'src', 'cli', 'bin.js');
export const SCENARIOS = path.join(SHARED, 'scenarios');

/**
 * Every command records into a ledger: tests (and the commands they spawn, through the environment) use a
 * throwaway one per test file, never the machine's ~/.local/share/firedup/ledger.db.
 */
export const TEST_LEDGER = path.join(os.tmpdir(), `firedup-test-ledger-${process.pid}.db`);
if (process.env.FIREDUP_LEDGER === undefined) {
  process.env.FIREDUP_LEDGER = TEST_LEDGER;
  process.on('exit', () => {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${TEST_LEDGER}${suffix}`, { force: true });
  });
}

export function analyzeBytes(
  data: Uint8Array,
  chunk = 1 << 20,
  opts: { bulk?: boolean } = {},
): AnalysisReport {
  const a = new LogAnalyzer({ year: 2026, ...opts });
  for (let i = 0; i < data.length; i += chunk) a.push(data.subarray(i, Math.min(data.length, i + chunk)));
  return a.end();
}

export function analyzeText(text: string): AnalysisReport {
  return analyzeBytes(Buffer.from(text));
}

export function readShared(rel: string): Buffer {
  return fs.readFileSync(path.join(SHARED, rel));
}

export function runCli(
  args: string[],
  input?: string | Buffer,
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input,
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 << 20,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function tmpDir(): string {
  return fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'firedup-test-'));
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The `--json` events (lines of stdout that are JSON objects). */
  events: Array<Record<string, any>>;
  seconds: number;
}

/** Runs the CLI asynchronously (for live commands), killing it after `timeoutMs`. */
export function spawnCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
): { child: ChildProcess; done: Promise<CliRun> } {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<CliRun>((resolve) => {
    child.on('exit', (code) => {
      clearTimeout(timer);
      const events = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, any>);
      resolve({ code, stdout, stderr, events, seconds: (Date.now() - started) / 1000 });
    });
  });
  return { child, done };
}

/** A user's mistake is answered in one line naming the thing, never a stack trace. */
export function assertOneLine(stderr: string): void {
  assert.equal(stderr.trim().split('\n').length, 1, `not one line: ${stderr}`);
  assert.ok(!/\n\s+at /.test(stderr), `stack trace: ${stderr}`);
  assert.match(stderr, /^firedup: /);
}
