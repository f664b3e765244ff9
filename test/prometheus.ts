/**
 * A throwaway Prometheus for tests: its own config, rules and TSDB in a temp dir, on 127.0.0.1 at a free
 * port, scraping the given targets every second. The system's Prometheus service (if any) is never started
 * or touched. Installs Debian's `prometheus` package (which brings promtool) when the binary is missing
 * (CI is a fresh Debian machine and runs as root).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { tmpDir } from './helpers.js';

export const PROMETHEUS = '/usr/bin/prometheus';
export const PROMTOOL = '/usr/bin/promtool';

/** Installs Prometheus when missing; returns why it could not (a reason to skip), or null when it is there. */
export function ensurePrometheus(): string | null {
  if (fs.existsSync(PROMETHEUS) && fs.existsSync(PROMTOOL)) return null;
  try {
    execFileSync(
      'sh',
      [
        '-c',
        'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], timeout: 600_000 },
    );
  } catch (e) {
    const err = String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim();
    return `apt-get could not install Debian's prometheus package: ${err.split('\n').pop()}`;
  }
  return fs.existsSync(PROMETHEUS) ? null : `the prometheus package did not provide ${PROMETHEUS}`;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface TestPrometheus {
  url: string;
  dir: string;
  /** An instant query: the result vector. */
  query(q: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  stop(): Promise<void>;
}

async function waitReady(url: string, proc: ChildProcess, log: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (proc.exitCode !== null)
      throw new Error(`prometheus exited: ${fs.readFileSync(log, 'utf8').slice(-2000)}`);
    try {
      const r = await fetch(`${url}/-/ready`);
      if (r.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`prometheus did not become ready: ${fs.readFileSync(log, 'utf8').slice(-2000)}`);
}

/** Starts Prometheus scraping `targets` (host:port) as job `firedup`, every second. */
export async function startPrometheus(targets: string[]): Promise<TestPrometheus> {
  const dir = tmpDir();
  const port = await freePort();
  const config = path.join(dir, 'prometheus.yml');
  fs.writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: firedup',
      '    static_configs:',
      `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
      '',
    ].join('\n'),
  );
  const log = path.join(dir, 'prometheus.log');
  const proc = spawn(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', fs.openSync(log, 'a')] },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(url, proc, log);
  } catch (e) {
    proc.kill('SIGKILL');
    throw e;
  }
  return {
    url,
    dir,
    async query(q) {
      const r = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(q)}`);
      const body = (await r.json()) as { status: string; error?: string; data: { result: any[] } };
      if (body.status !== 'success') throw new Error(`query ${q}: ${body.error}`);
      return body.data.result;
    },
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
