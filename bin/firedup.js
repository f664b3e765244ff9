#!/usr/bin/env node
// The installed command. It runs the CLI bundled into one script (dist/bundle/cli/firedup.cjs, made by `npm
// run build`: scripts/build-bundle.mjs), compiled with a V8 code cache: a process that starts from the cache
// neither reads ~110 module files nor parses them, which was most of a `firedup status`. The bundle's entry
// (src/cli/bin.ts) handles exit codes and internal errors. `--help` and `--version` come from a small bundle
// of their own (src/cli/quick.ts), without the CLI, and `status` from one without the other commands
// (status.cjs, src/cli/bin-status.ts: half the code to read and to load from the cache). This file is CommonJS (bin/package.json says so), like
// both bundles: none of them starts Node's ES module loader, which a bare `node -e 0` does not pay for either.
//
// The cache is one file per first argument (`status`, `runs`, …: each caches the functions its own run
// compiled), named after the bundle's size and mtime so that a rebuild never meets an old one, and written
// at exit when missing or refused by V8 (another Node, other flags). It lives in dist/.code-cache/, outside
// the package's `files`, or where that is read-only (a root-owned global install) in the temp directory.
// A cache that fails costs speed only: the script is then compiled from source.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const dir = path.join(root, 'dist', 'bundle', 'cli');
const bundle = path.join(dir, 'firedup.cjs');
const arg = process.argv[2];

function missing() {
  process.stderr.write(
    `firedup: ${path.relative(root, bundle)} is missing: run \`npm run build\` in ${root}\n`,
  );
  process.exit(70);
}

function quick() {
  let mod;
  try {
    mod = require(path.join(dir, 'quick.cjs'));
  } catch (err) {
    if (err?.code !== 'MODULE_NOT_FOUND') throw err;
    missing();
  }
  const answer = mod.quickAnswer(arg);
  process.exitCode = answer.code;
  // Straight to the descriptor: setting up `process.stdout` on a pipe costs about 2 ms, more than all the rest
  // of `--version`. A pipe left non-blocking by the reader (EAGAIN) gets the rest through the stream.
  const buf = Buffer.from(answer.out);
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(1, buf, off);
    } catch (err) {
      if (err.code !== 'EAGAIN') return outputFailed(err);
      process.stdout.on('error', outputFailed);
      process.stdout.write(buf.subarray(off));
      return;
    }
  }
}

function outputFailed(err) {
  // `firedup --help | head -1`: the reader went away, which is not an error (as in src/cli/main.ts).
  if (err.code === 'EPIPE') process.exit(0);
  // a full disk behind `> file`: one line, as the commands say it (src/cli/stdout.ts)
  process.stderr.write(
    `firedup: cannot write to standard output (${err.code ?? err.message}); write it elsewhere or free space\n`,
  );
  process.exit(1);
}

function runBundle() {
  const vm = require('node:vm');
  const { pathToFileURL } = require('node:url');
  let source;
  let stat;
  let file = bundle;
  try {
    // ASCII (the build escapes the rest): latin1 reads it without decoding UTF-8, twice as fast.
    if (arg === 'status' || arg === 'mcp') {
      try {
        file = path.join(dir, `${arg}.cjs`);
        source = fs.readFileSync(file, 'latin1');
      } catch {
        file = bundle;
      }
    }
    source ??= fs.readFileSync(file, 'latin1');
    stat = fs.statSync(file);
  } catch {
    missing();
  }
  const key = /^[a-z][a-z-]{0,20}$/.test(arg) ? arg : 'other';
  const name = `${key}-${stat.size}-${Math.trunc(stat.mtimeMs)}.bin`;
  let cachedData;
  for (const d of cacheDirs()) {
    try {
      if (d !== CACHE_DIR && !ownedPrivate(d)) continue;
      cachedData = fs.readFileSync(path.join(d, name));
      break;
    } catch {}
  }
  // The bundle is one function expression, `(function (exports, require, module, __filename, __dirname,
  // __firedup_bundle_url) {…})` (scripts/build-bundle.mjs): compiled as read, so stack traces give the
  // bundle's own lines and columns, which its source map turns into src/ ones (src/cli/stack.ts).
  const script = new vm.Script(source, { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected)
    process.once('exit', () => saveCache(script.createCachedData(), key, name));
  const mod = { exports: {} };
  const run = script.runInThisContext();
  run(mod.exports, require('node:module').createRequire(file), mod, file, dir, pathToFileURL(file).href);
}

/**
 * A code cache is code: one in the shared temp directory is used only from a directory of this user's that
 * no one else can write (another user could have made it first, with a cache of their own).
 */
function ownedPrivate(d) {
  const st = fs.lstatSync(d);
  return st.isDirectory() && st.uid === (process.getuid?.() ?? st.uid) && (st.mode & 0o022) === 0;
}

const CACHE_DIR = path.join(root, 'dist', '.code-cache');

/** The cache's directories in the order tried: the temp directory's (node:os) only when it comes to that. */
function* cacheDirs() {
  yield CACHE_DIR;
  yield path.join(require('node:os').tmpdir(), `firedup-code-cache-${process.getuid?.() ?? 0}`);
}

function saveCache(data, key, name) {
  for (const d of cacheDirs()) {
    try {
      fs.mkdirSync(d, { recursive: true, mode: 0o700 });
      if (d !== CACHE_DIR && !ownedPrivate(d)) continue;
      // Written aside and renamed: a concurrent firedup reads the old file or the new one, never half of one.
      const tmp = path.join(d, `.${name}.${process.pid}`);
      fs.writeFileSync(tmp, data);
      fs.renameSync(tmp, path.join(d, name));
      for (const f of fs.readdirSync(d))
        if (f.startsWith(`${key}-`) && f !== name) fs.rmSync(path.join(d, f), { force: true });
      return;
    } catch {}
  }
}

/**
 * `firedup mcp`: its front (src/mcp/front.ts, bundled as mcp-front.cjs) answers the client's `initialize` when it
 * can, before the MCP bundle is read, and leaves what it read to the server.
 */
function mcpFront() {
  let mod;
  try {
    mod = require(path.join(dir, 'mcp-front.cjs'));
  } catch (err) {
    if (err?.code !== 'MODULE_NOT_FOUND') throw err;
    return;
  }
  mod.answerInitialize(process.argv.slice(3));
}

if ([undefined, '-h', '--help', '-V', '-v', '--version', 'version'].includes(arg)) quick();
else {
  if (arg === 'mcp') mcpFront();
  runBundle();
}
