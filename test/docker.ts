/**
 * The real Docker daemon for the container tests. The setup installs Debian's docker.io when the CLI is missing and
 * starts dockerd when none answers (both as root, as a fresh CI machine needs); with no registry reachable, the image
 * is made with `docker import` from a root filesystem assembled here: busybox, the real llama-server with its own
 * loader and libraries (scripts/llama-server-setup.sh), its tiny model, and a scripted SGLang-shaped engine
 * (test/fixtures/docker/engine.sh) replaying real SGLang lines.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, tmpDir } from './helpers.js';
import { ensureLlama } from './llama.js';

export function docker(
  args: string[],
  input?: string | Buffer,
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('docker', args, { input, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? r.error?.message ?? '' };
}

function daemonUp(): boolean {
  return docker(['info', '--format', '{{.ServerVersion}}']).code === 0;
}

/** Installs docker.io and starts dockerd where needed; throws with what failed. */
export async function ensureDocker(): Promise<void> {
  if (daemonUp()) return;
  // A machine may carry the docker client alone (a static binary in /usr/local/bin): the daemon is Debian's.
  if (spawnSync('sh', ['-c', 'command -v docker && command -v dockerd']).status !== 0) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { env, stdio: 'ignore', timeout: 300_000 });
    execFileSync('apt-get', ['install', '-y', '-qq', 'docker.io'], {
      env,
      stdio: 'ignore',
      timeout: 600_000,
    });
  }
  const log = fs.openSync(
    path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'firedup-dockerd.log'),
    'a',
  );
  const d = spawn('dockerd', [], { detached: true, stdio: ['ignore', log, log] });
  d.unref();
  for (let i = 0; i < 120; i++) {
    if (daemonUp()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('dockerd did not answer within 30 s (see $TMPDIR/firedup-dockerd.log)');
}

const BUSYBOX_TOOLS =
  'sh echo cat sleep dd tail head sed tr printf seq wget ls true false rm touch kill ps'.split(' ');

/** A unique suffix per test run, for container and image names. */
export const RUN = `${process.pid}-${Date.now().toString(36)}`;

/** Imports the test image (busybox, llama-server, the scripted engine) and returns its tag. */
export function buildImage(): string {
  const tag = `firedup-test-engine:${RUN}`;
  const dir = tmpDir();
  const root = path.join(dir, 'rootfs');
  for (const d of ['bin', 'srv', 'tmp', 'opt', 'models', 'etc'])
    fs.mkdirSync(path.join(root, d), { recursive: true });
  addBusybox(root);
  fs.copyFileSync(
    path.join(ROOT, 'examples', 'glm5-launch-to-shutdown.log'),
    path.join(root, 'srv', 'sglang.log'),
  );
  fs.copyFileSync(
    path.join(ROOT, 'test', 'fixtures', 'docker', 'engine.sh'),
    path.join(root, 'bin', 'engine'),
  );
  fs.chmodSync(path.join(root, 'bin', 'engine'), 0o755);
  // llama-server: the setup's root (Debian's build, its loader and every library it links), run by its loader.
  const llama = ensureLlama();
  fs.cpSync(path.join(llama, 'root'), path.join(root, 'opt', 'llama'), {
    recursive: true,
    verbatimSymlinks: true,
  });
  fs.copyFileSync(path.join(llama, 'tiny.gguf'), path.join(root, 'models', 'tiny.gguf'));
  // The setup's root as written and as it really is (node_modules may be a symlink to another checkout's).
  const roots = [...new Set([path.join(llama, 'root'), fs.realpathSync(path.join(llama, 'root'))])];
  for (const r of roots) relinkInto(r, path.join(root, 'opt', 'llama'));
  copyHostLibraries(path.join(llama, 'root'), path.join(root, 'opt', 'llama'));
  let wrapper = fs.readFileSync(path.join(llama, 'llama-server'), 'utf8');
  for (const r of roots) wrapper = wrapper.replaceAll(`${r}/`, '/opt/llama/');
  fs.writeFileSync(path.join(root, 'bin', 'llama-server'), wrapper, { mode: 0o755 });
  fs.writeFileSync(path.join(root, 'etc', 'passwd'), 'root:x:0:0:root:/:/bin/sh\n');
  const tar = spawnSync('tar', ['-C', root, '-c', '.'], { maxBuffer: 1 << 30 });
  if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr}`);
  const r = docker(['import', '-c', 'ENV PATH=/bin', '-', tag], tar.stdout);
  fs.rmSync(dir, { recursive: true, force: true });
  if (r.code !== 0) throw new Error(`docker import failed: ${r.stderr}`);
  return tag;
}

/**
 * busybox and its tools in /bin, with the libraries it links where it links them (Debian's `busybox` is dynamic;
 * `busybox-static` is not, and then there are none). Installs busybox when missing.
 */
function addBusybox(root: string): void {
  if (!fs.existsSync('/usr/bin/busybox'))
    execFileSync('apt-get', ['install', '-y', '-qq', 'busybox'], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      stdio: 'ignore',
      timeout: 300_000,
    });
  fs.mkdirSync(path.join(root, 'bin'), { recursive: true });
  fs.copyFileSync('/usr/bin/busybox', path.join(root, 'bin', 'busybox'));
  fs.chmodSync(path.join(root, 'bin', 'busybox'), 0o755);
  for (const t of BUSYBOX_TOOLS) fs.symlinkSync('busybox', path.join(root, 'bin', t));
  const ldd = spawnSync('ldd', ['/usr/bin/busybox'], { encoding: 'utf8' });
  for (const m of (ldd.stdout ?? '').matchAll(/(?:=> )?(\/\S+) \(0x/g)) {
    const to = path.join(root, m[1]!);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(fs.realpathSync(m[1]!), to);
  }
}

/**
 * A small image without llama-server: busybox, the scripted engine and its SGLang log. For the tests that need a
 * container's log and state, not a real engine.
 */
export function buildSmallImage(): string {
  const tag = `firedup-test-small:${RUN}`;
  const dir = tmpDir();
  const root = path.join(dir, 'rootfs');
  for (const d of ['srv', 'tmp', 'etc']) fs.mkdirSync(path.join(root, d), { recursive: true });
  addBusybox(root);
  fs.copyFileSync(
    path.join(ROOT, 'examples', 'glm5-launch-to-shutdown.log'),
    path.join(root, 'srv', 'sglang.log'),
  );
  fs.copyFileSync(
    path.join(ROOT, 'test', 'fixtures', 'docker', 'engine.sh'),
    path.join(root, 'bin', 'engine'),
  );
  fs.chmodSync(path.join(root, 'bin', 'engine'), 0o755);
  fs.writeFileSync(path.join(root, 'etc', 'passwd'), 'root:x:0:0:root:/:/bin/sh\n');
  const tar = spawnSync('tar', ['-C', root, '-c', '.'], { maxBuffer: 1 << 30 });
  if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr}`);
  const r = docker(['import', '-c', 'ENV PATH=/bin', '-', tag], tar.stdout);
  fs.rmSync(dir, { recursive: true, force: true });
  if (r.code !== 0) throw new Error(`docker import failed: ${r.stderr}`);
  return tag;
}

/** Symlinks that name the setup's root by its absolute path (the CPU backends beside the loader) made relative. */
function relinkInto(from: string, to: string): void {
  for (const e of fs.readdirSync(to, { recursive: true, withFileTypes: true })) {
    if (!e.isSymbolicLink()) continue;
    const link = path.join(e.parentPath, e.name);
    const target = fs.readlinkSync(link);
    if (!target.startsWith(`${from}/`)) continue;
    fs.unlinkSync(link);
    fs.symlinkSync(path.relative(path.dirname(link), path.join(to, target.slice(from.length + 1))), link);
  }
}

/**
 * The libraries llama-server and its CPU backends (loaded at run time) take from the host rather than the setup's root
 * (libz, libzstd, …), as the root's own loader lists them (`ld.so --list`, what ldd runs), copied into the image.
 */
function copyHostLibraries(llamaRoot: string, dest: string): void {
  const libs = path.join(llamaRoot, 'usr', 'lib', 'x86_64-linux-gnu');
  const loader = fs.readdirSync(libs).find((f) => f.startsWith('ld-linux'));
  if (!loader) return;
  const libPath = [libs, path.join(libs, 'llama'), path.join(libs, 'ggml', 'backends0')].join(':');
  const backends = path.join(libs, 'ggml', 'backends0');
  const objects = [
    path.join(llamaRoot, 'usr', 'bin', 'llama-server'),
    ...(fs.existsSync(backends) ? fs.readdirSync(backends).map((f) => path.join(backends, f)) : []),
  ];
  const wanted = new Set<string>();
  for (const o of objects) {
    const r = spawnSync(path.join(libs, loader), ['--library-path', libPath, '--list', o], {
      encoding: 'utf8',
    });
    for (const m of (r.stdout ?? '').matchAll(/=> (\/\S+) \(/g))
      if (!m[1]!.startsWith(llamaRoot)) wanted.add(m[1]!);
  }
  const to = path.join(dest, 'usr', 'lib', 'x86_64-linux-gnu');
  for (const lib of wanted) fs.copyFileSync(fs.realpathSync(lib), path.join(to, path.basename(lib)));
}

/** `docker run -d` with a unique name; returns the name. */
export function run(name: string, args: string[]): string {
  const r = docker(['run', '-d', '--name', name, ...args]);
  if (r.code !== 0) throw new Error(`docker run ${name} failed: ${r.stderr}`);
  return name;
}

export function inspect(name: string, format: string): string {
  return docker(['inspect', '--format', format, name]).stdout.trim();
}

export function removeAll(names: Iterable<string>, image: string | null): void {
  const list = [...names];
  if (list.length) docker(['rm', '-f', ...list]);
  if (image) docker(['rmi', '-f', image]);
}
