/**
 * The installed command runs the bundle (bin/firedup.js → dist/bundle/cli/firedup.cjs, scripts/build-bundle.mjs):
 * it must be current, work on its own (a copy of the package without dist/src), find what it finds by path
 * (package.json, examples/, web/, the catalogs, the scan worker, better-sqlite3's addon), and say what the
 * compiled tree says.
 */
import assert from 'node:assert/strict';
import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { BIN, ROOT, tmpDir } from '../helpers.js';

const BUNDLE_DIR = path.join(ROOT, 'dist', 'bundle', 'cli');
const EXAMPLE = path.join(ROOT, 'examples', 'glm5-serving.log');

/** A copy of the package as npm installs it, without the compiled tree: only the bundle can answer. */
function installedCopy(): string {
  const dir = tmpDir();
  fs.cpSync(path.join(ROOT, 'bin'), path.join(dir, 'bin'), { recursive: true });
  fs.cpSync(BUNDLE_DIR, path.join(dir, 'dist', 'bundle', 'cli'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  for (const d of ['examples', 'web', 'node_modules']) fs.symlinkSync(path.join(ROOT, d), path.join(dir, d));
  return dir;
}

function run(bin: string, args: string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, FIREDUP_LEDGER: 'off', COLUMNS: '100', ...env },
    timeout: 60_000,
  });
}

describe('the bundle bin/firedup.js runs', () => {
  let pkg: string;
  let bin: string;
  before(() => {
    pkg = installedCopy();
    bin = path.join(pkg, 'bin', 'firedup.js');
  });
  after(() => fs.rmSync(pkg, { recursive: true, force: true }));

  it('is current: a fresh build of the sources gives the same files', async () => {
    const { staleFiles } = await import(pathToFileURL(path.join(ROOT, 'scripts', 'build-bundle.mjs')).href);
    assert.deepEqual(await staleFiles(), [], 'dist/bundle is stale: npm run build');
  });

  it('answers --version from package.json, and --help and no command as the compiled tree does', () => {
    const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
    assert.equal(run(bin, ['--version']).stdout, `${version}\n`);
    assert.equal(run(bin, ['-V']).stdout, `${version}\n`);
    for (const args of [['--help'], ['-h'], [], ['help', 'status'], ['status', '--help']]) {
      const a = run(bin, args);
      const b = run(BIN, args);
      assert.equal(a.stdout, b.stdout, `firedup ${args.join(' ')}`);
      assert.equal(a.status, b.status, `exit code of firedup ${args.join(' ')}`);
    }
  });

  it('reads logs as the compiled tree does, typos and all', () => {
    for (const args of [
      ['runs', '--json', EXAMPLE],
      ['status', '--explain', '--json', EXAMPLE],
      ['stauts'],
    ]) {
      const a = run(bin, args);
      const b = run(BIN, args);
      assert.equal(a.stdout, b.stdout, `firedup ${args.join(' ')}`);
      assert.equal(a.stderr, b.stderr);
      assert.equal(a.status, b.status);
    }
  });

  it('records into the ledger through better-sqlite3, and the next read resumes from it', () => {
    const log = path.join(pkg, 'server.log');
    fs.copyFileSync(EXAMPLE, log);
    const ledger = path.join(pkg, 'ledger.db');
    const first = run(bin, ['status', '--json', log], { FIREDUP_LEDGER: ledger });
    assert.equal(JSON.parse(first.stdout).outcome, 'serving', first.stderr);
    const db = new Database(ledger, { readonly: true });
    const row = db.prepare('SELECT offset FROM logs').get() as { offset: number };
    db.close();
    assert.equal(row.offset, fs.statSync(log).size);
    const again = run(bin, ['status', '--json', log], { FIREDUP_LEDGER: ledger });
    // The same launch, but for the live verdict, which counts the seconds since the file's last write.
    const { live: _a, ...before } = JSON.parse(first.stdout);
    const { live: _b, ...now } = JSON.parse(again.stdout);
    assert.deepEqual(now, before);
  });

  it("knows a line only the engines' catalog knows (catalogs are files beside the bundle)", () => {
    const log = path.join(pkg, 'catalog.log');
    fs.writeFileSync(
      log,
      'INFO 03-01 10:00:00 [api_server.py:10] vLLM API server version 0.11.2\n' +
        'INFO 03-01 10:00:09 [kv_cache_utils.py:20] Multiplying the GPU KV cache size by the dcp_world_size 8.\n',
    );
    const r = run(bin, ['runs', '--json', log]);
    assert.equal(JSON.parse(r.stdout).launches[0].phase, 'kv_cache', r.stderr);
  });

  it('keeps a code cache per command, and runs as well from a damaged one', () => {
    const cache = path.join(pkg, 'dist', '.code-cache');
    const first = run(bin, ['runs', '--json', EXAMPLE]);
    const files = fs.readdirSync(cache).filter((f) => f.startsWith('runs-'));
    assert.equal(files.length, 1, `one cache for runs: ${fs.readdirSync(cache)}`);
    fs.writeFileSync(path.join(cache, files[0]!), 'not a code cache');
    const again = run(bin, ['runs', '--json', EXAMPLE]);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, first.stdout);
  });

  it('plays the bundled example (firedup demo finds examples/)', () => {
    const r = run(bin, ['demo', '--speed', '400', '--json']);
    assert.equal(r.status, 0, r.stderr);
  });

  it("serves the dashboard's files from web/", async () => {
    const child = spawn(
      process.execPath,
      [bin, 'serve', '--port', '0', '--no-gpu', '--ledger', path.join(pkg, 's.db')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (d) => {
          out += d;
          const m = /http:\/\/[^\s]+/.exec(out);
          if (m && out.includes('\n')) resolve(m[0].replace(/\/$/, ''));
        });
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      });
      const url = new URL('/assets/app.js', base.replace('0.0.0.0', '127.0.0.1'));
      const body = await new Promise<{ status: number; text: string }>((resolve, reject) =>
        http
          .get(url, (res) => {
            let text = '';
            res.on('data', (d) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          })
          .on('error', reject),
      );
      assert.equal(body.status, 200);
      assert.equal(body.text, fs.readFileSync(path.join(ROOT, 'web', 'app.js'), 'utf8'));
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('names its scan worker beside it, and that worker reads a range as the compiled one does', async () => {
    // The bundle resolves the worker against its own URL; a missing worker would only make big reads slower.
    assert.match(
      fs.readFileSync(path.join(BUNDLE_DIR, 'firedup.cjs'), 'utf8'),
      /new URL\("\.\/scan-worker\.js",\s*__firedup_bundle_url\)/,
    );
    const scan = (file: string) =>
      new Promise<unknown>((resolve, reject) => {
        const w = new Worker(file, {
          workerData: { path: EXAMPLE, start: 0, end: fs.statSync(EXAMPLE).size, maxLine: 1 << 20 },
        });
        w.once('message', resolve);
        w.once('error', reject);
      });
    assert.deepEqual(
      await scan(path.join(BUNDLE_DIR, 'scan-worker.js')),
      await scan(path.join(ROOT, 'dist', 'src', 'sources', 'scan-worker.js')),
    );
  });

  it("maps an internal error's frames in the bundle back to the sources", async () => {
    const { sourceMappedStack } = await import('../../src/cli/stack.js');
    const bundle = path.join(BUNDLE_DIR, 'firedup.cjs');
    const lines = fs.readFileSync(bundle, 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('async function main('));
    const col = lines[line]!.indexOf('async function main(');
    const mainTs = fs.readFileSync(path.join(ROOT, 'src', 'cli', 'main.ts'), 'utf8').split('\n');
    const want = mainTs.findIndex((l) => l.startsWith('export async function main(')) + 1;
    const stack = `Error: a bug\n    at main (${bundle}:${line + 1}:${col + 1})\n    at node:internal/x:1:1`;
    assert.equal(
      sourceMappedStack(stack),
      `Error: a bug\n    at main (${path.join(ROOT, 'src', 'cli', 'main.ts')}:${want}:1)\n    at node:internal/x:1:1`,
    );
  });

  it('says how to build it when it is missing, in one line', () => {
    fs.renameSync(path.join(pkg, 'dist', 'bundle'), path.join(pkg, 'dist', 'gone'));
    try {
      for (const args of [['status', EXAMPLE], ['--help']]) {
        const r = run(bin, args);
        assert.equal(r.status, 70);
        assert.match(
          r.stderr,
          /^firedup: dist\/bundle\/cli\/firedup\.cjs is missing: run `npm run build` in .+\n$/,
        );
      }
    } finally {
      fs.renameSync(path.join(pkg, 'dist', 'gone'), path.join(pkg, 'dist', 'bundle'));
    }
  });
});
