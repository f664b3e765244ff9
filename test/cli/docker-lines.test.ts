/**
 * A line longer than 16 KiB from a real container: the json-file driver keeps it as several partial entries and
 * `docker logs --timestamps` prints each one's stamp in the middle of the line; firedup reads it whole. And what
 * `launch` says when it is pointed at a container.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DockerLogMerge, joinPartials, PARTIAL_BYTES } from '../../src/sources/docker/logs.js';
import { buildSmallImage, docker, ensureDocker, inspect, RUN, removeAll, run } from '../docker.js';
import { assertOneLine, ROOT, runCli, tmpDir } from '../helpers.js';
import { waitFor } from '../llama.js';

const names = new Set<string>();
let image: string | null = null;
let dir = '';
const name = (what: string) => {
  const n = `firedup-lines-${what}-${RUN}`;
  names.add(n);
  return n;
};

/** Inserts a field `x_padN='aaa…', ` before the one holding `needle` in a ServerArgs line, so that the cut at byte `cut` falls `into` bytes into the needle. */
function padTo(line: string, needle: string, cut: number, into = 5): string {
  const before = line.indexOf(needle);
  const at = Math.max(line.lastIndexOf(', ', before) + 2, line.indexOf('ServerArgs(') + 'ServerArgs('.length);
  const field = (n: number) => `x_pad${cut}='${'a'.repeat(n)}', `;
  const n = cut - into - before - field(0).length;
  assert.ok(n > 0);
  return line.slice(0, at) + field(n) + line.slice(at);
}

describe('long lines and launch, against the real daemon', { timeout: 180_000 }, () => {
  before(async () => {
    await ensureDocker();
    image = buildSmallImage();
    dir = tmpDir();
  });
  after(() => {
    removeAll(names, image);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a 40 KiB server_args line is read whole: the stamps docker puts at each 16 KiB cut are peeled', async () => {
    const log = fs
      .readFileSync(path.join(ROOT, 'examples', 'glm5-launch-to-shutdown.log'), 'utf8')
      .split('\n');
    // The model path straddles the first cut (16 KiB of the line's text), the port the second.
    let line = padTo(padTo(log[1]!, 'lukealonso/GLM-5', PARTIAL_BYTES), 'port=8000', 2 * PARTIAL_BYTES);
    assert.equal(line.indexOf('lukealonso/GLM-5'), PARTIAL_BYTES - 5);
    assert.equal(line.indexOf('port=8000'), 2 * PARTIAL_BYTES - 5);
    // 40 KiB in all: a field at the end.
    line = `${line.slice(0, -1)}, z_pad='${'b'.repeat(40 * 1024 - line.length - 12)}')`;
    assert.ok(line.length >= 40 * 1024 - 2);
    const body = [log[0], line, ...log.slice(2, 150)].join('\n');
    fs.writeFileSync(path.join(dir, 'long.log'), `${body}\n`);
    const c = run(name('long'), [
      '-v',
      `${dir}:/in:ro`,
      image!,
      'sh',
      '-c',
      'cat /in/long.log >&2; sleep 3600',
    ]);
    await waitFor(() => docker(['logs', c]).stderr.length >= body.length, 20_000, 'the log');
    // What docker itself prints: the stamps inside the long line (the daemon keeps it as partial entries).
    const raw = docker(['logs', '--timestamps', c]).stderr.split('\n')[1]!;
    const stamps = raw.match(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z /g) ?? [];
    assert.ok(stamps.length >= 2, 'this daemon splits the line (json-file partial messages)');
    // The merge over a real `docker logs --timestamps` gives the line back byte for byte.
    const child = spawn('docker', ['logs', '--timestamps', c], { stdio: ['ignore', 'pipe', 'pipe'] });
    const got: Buffer[] = [];
    await new DockerLogMerge(null, (t) => got.push(t)).attach(child.stdout!, child.stderr!);
    assert.equal(Buffer.concat(got).toString('utf8'), `${body}\n`);
    // And status reads the config from it.
    const r = runCli(['status', '--no-ledger', '--json', `docker://${c}`]);
    const s = JSON.parse(r.stdout);
    assert.equal(s.config.model_path, 'lukealonso/GLM-5-NVFP4');
    assert.equal(s.config.port, 8000);
    assert.equal(s.config.tp_size, 8);
  });

  it('joinPartials peels only docker stamps at the 16 KiB cut', () => {
    const a = 'a'.repeat(PARTIAL_BYTES);
    const stamp = '2026-01-02T03:04:05.123456789Z ';
    assert.equal(joinPartials(Buffer.from(`${a}${stamp}tail\n`)).toString(), `${a}tail\n`);
    assert.equal(joinPartials(Buffer.from(`${a}${stamp}\n`)).toString(), `${a}\n`);
    // A stamp written by the server itself, anywhere else, stays.
    const own = `x${a}${stamp}tail\n`;
    assert.equal(joinPartials(Buffer.from(own)).toString(), own);
    assert.equal(joinPartials(Buffer.from(`short ${stamp}\n`)).toString(), `short ${stamp}\n`);
  });

  it('launch refuses a container as its log, and a detached docker run, naming what to do', () => {
    const c = run(name('launch'), [image!, 'engine', 'serve']);
    assert.equal(inspect(c, '{{.State.Status}}'), 'running');
    const log = runCli(['launch', '--no-ledger', '--log', `docker://${c}`, '--', 'sh', '-c', 'true']);
    assert.equal(log.code, 1, log.stderr);
    assertOneLine(log.stderr);
    assert.match(log.stderr, new RegExp(`firedup watch docker://${c}`));
    const detached = runCli(['launch', '--no-ledger', '--', 'docker', 'run', '-d', '--name', 'x', image!]);
    assert.equal(detached.code, 1, detached.stderr);
    assertOneLine(detached.stderr);
    assert.match(detached.stderr, /returns at once.*firedup watch docker:\/\/x/);
    // docker ps -a has no container named x: nothing was run.
    assert.equal(docker(['inspect', 'x']).code, 1);
  });
});
