/**
 * Which engine build a launch runs: the package version, and when the engine is imported from a git
 * checkout, that checkout's HEAD and locally modified files with their sha256 (so "which code was this
 * launch?" has an answer after the tree moved on). Best-effort: every step has a short timeout, failures
 * give nulls, and it runs beside the launch, never before it.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EngineId } from '../core/base/types.js';
import type { ParsedCommand } from '../core/campaign/intended.js';

export interface EngineInstall {
  version: string | null;
  git: { root: string; head: string | null; modified: Array<{ path: string; sha256: string | null }> } | null;
}

export interface InstallOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Per command (default 5 s). */
  timeoutMs?: number;
  /** Abandons discovery (the launch is over): running commands are killed. */
  signal?: AbortSignal;
}

/** Distribution and top-level module of the Python engines. */
const PY_PACKAGES: Partial<Record<EngineId, { dist: string; module: string }>> = {
  sglang: { dist: 'sglang', module: 'sglang' },
  vllm: { dist: 'vllm', module: 'vllm' },
  trtllm: { dist: 'tensorrt_llm', module: 'tensorrt_llm' },
};

/** More modified files than this are summarised by their count: a build tree is not a patch. */
const MAX_MODIFIED = 500;
/** Files hashed at most this big; bigger ones get a null hash. */
const MAX_HASHED_BYTES = 64 << 20;

// find_spec locates the package without importing it (importing vllm takes seconds and may touch GPUs).
const PY_SCRIPT = `import sys, json
r = {"version": None, "file": None}
try:
    import importlib.metadata as m; r["version"] = m.version(sys.argv[1])
except Exception: pass
try:
    import importlib.util as u; s = u.find_spec(sys.argv[2]); r["file"] = s.origin if s else None
except Exception: pass
print(json.dumps(r))`;

function run(
  file: string,
  args: string[],
  opts: InstallOptions,
  cwd = opts.cwd,
): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd,
        env: opts.env,
        timeout: opts.timeoutMs ?? 5000,
        killSignal: 'SIGKILL',
        maxBuffer: 8 << 20,
        signal: opts.signal,
      },
      (err, stdout, stderr) => resolve({ ok: !err, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

/** `name` as the shell would find it on the child's PATH (a path with a slash is taken as is). */
export function resolveOnPath(name: string, env: NodeJS.ProcessEnv, cwd: string): string | null {
  const exec = (p: string) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (name.includes('/')) {
    const p = path.resolve(cwd, name);
    return exec(p) ? p : null;
  }
  for (const dir of (env.PATH ?? '').split(':')) {
    const p = path.join(path.resolve(cwd, dir || '.'), name);
    if (exec(p)) return p;
  }
  return null;
}

/** The interpreter of a console script (`vllm`, `sglang`): its `#!` line, `#!/usr/bin/env python3` resolved on PATH. */
function shebangPython(script: string, opts: InstallOptions): string | null {
  let head: string;
  try {
    const fd = fs.openSync(script, 'r');
    try {
      const buf = Buffer.alloc(512);
      head = buf.subarray(0, fs.readSync(fd, buf, 0, 512, 0)).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
  const m = /^#!\s*(\S+)(?:[ \t]+(\S+))?/.exec(head);
  if (!m) return null;
  if (path.basename(m[1]!) === 'env' && m[2]) return resolveOnPath(m[2], opts.env, opts.cwd);
  return /python/.test(path.basename(m[1]!)) ? m[1]! : null;
}

/** `llama-server --version`: `version: 4589 (abc1234)` or `version: 0.7.0 (build 11669, commit Debian)`. */
export function parseBinaryVersion(text: string): string | null {
  const m =
    /^version: (.+)$/m.exec(text) ?? /^(?:text-generation-launcher|trtllm-serve)\S* (\S+)/m.exec(text);
  return m ? m[1]!.trim() : null;
}

/** `git status --porcelain -z`: paths of changed entries (a rename's new path), deletions included. */
export function parsePorcelainZ(out: string): Array<{ path: string; deleted: boolean }> {
  const parts = out.split('\0');
  const res: Array<{ path: string; deleted: boolean }> = [];
  for (let i = 0; i < parts.length; i++) {
    const e = parts[i]!;
    if (e.length < 4) continue;
    const xy = e.slice(0, 2);
    res.push({ path: e.slice(3), deleted: xy.includes('D') });
    // A rename or copy is followed by its original path.
    if (xy[0] === 'R' || xy[0] === 'C') i++;
  }
  return res;
}

function sha256File(file: string): Promise<string | null> {
  return new Promise((resolve) => {
    fs.stat(file, (err, st) => {
      if (err || !st.isFile() || st.size > MAX_HASHED_BYTES) return resolve(null);
      const h = createHash('sha256');
      fs.createReadStream(file)
        .on('data', (d) => h.update(d))
        .on('error', () => resolve(null))
        .on('end', () => resolve(h.digest('hex')));
    });
  });
}

/** The git checkout `file` is tracked in, with HEAD and modified files; null when it is not (a wheel in site-packages). */
export async function gitCheckoutOf(file: string, opts: InstallOptions): Promise<EngineInstall['git']> {
  const dir = path.dirname(file);
  const top = await run('git', ['-C', dir, 'rev-parse', '--show-toplevel'], opts, dir);
  if (!top.ok) return null;
  const root = top.stdout.trim();
  // A venv inside a project's checkout is in that work tree without being its code: require the file be tracked.
  const tracked = await run('git', ['-C', root, 'ls-files', '--error-unmatch', '--', file], opts, root);
  if (!tracked.ok) return null;
  const head = await run('git', ['-C', root, 'rev-parse', 'HEAD'], opts, root);
  const status = await run('git', ['-C', root, 'status', '--porcelain', '-z'], opts, root);
  const entries = status.ok ? parsePorcelainZ(status.stdout).slice(0, MAX_MODIFIED) : [];
  const modified = await Promise.all(
    entries.map(async (e) => ({
      path: e.path,
      sha256: e.deleted ? null : await sha256File(path.join(root, e.path)),
    })),
  );
  return { root, head: head.ok ? head.stdout.trim() || null : null, modified };
}

/** The engine's version and checkout for a command line (see the module comment). */
export async function discoverEngineInstall(
  cmd: ParsedCommand,
  opts: InstallOptions,
): Promise<EngineInstall> {
  const none: EngineInstall = { version: null, git: null };
  const pkg = cmd.engine ? PY_PACKAGES[cmd.engine] : undefined;
  const exe = resolveOnPath(cmd.executable, opts.env, opts.cwd);
  if (pkg) {
    const python = cmd.python ?? (exe ? shebangPython(exe, opts) : null);
    if (!python) return none;
    const r = await run(python, ['-c', PY_SCRIPT, pkg.dist, pkg.module], opts);
    if (!r.ok) return none;
    let info: { version: string | null; file: string | null };
    try {
      info = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
    } catch {
      return none;
    }
    const file = info.file ? path.resolve(opts.cwd, info.file) : null;
    return { version: info.version ?? null, git: file ? await gitCheckoutOf(file, opts) : null };
  }
  // Compiled servers say their build themselves.
  if (exe && (cmd.engine === 'llamacpp' || cmd.engine === 'tgi')) {
    const r = await run(exe, ['--version'], opts);
    return { version: parseBinaryVersion(`${r.stdout}\n${r.stderr}`), git: null };
  }
  return none;
}
