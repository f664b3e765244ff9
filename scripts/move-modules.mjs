#!/usr/bin/env node
// Moves modules (and their tests) to new paths with `git mv`, and rewrites every reference to them, so that a
// move is one commit that changes nothing but paths and import specifiers (git's rename detection then lets
// other branches' edits to the moved files merge).
//
// usage: node scripts/move-modules.mjs MAPPING.json [--dry-run]
//   MAPPING.json  { "moves": { "old/path.ts": "new/path.ts", "old/dir": "new/dir", ... },
//                   "noLooseFiles": ["src/core", ...] }   (scripts/core-layout.json is src/core's stage layout)
//   --dry-run     say what would move and which files would change; touch nothing
//
// What it rewrites, in every tracked text file but logs and fixture data:
// - relative specifiers in code (`'./report.js'`, `'../../src/core/verdict.js'`, `'../fixtures'`): each is
//   resolved from where its file was, and written again from where the file will be to where the target will be;
// - a moved path named anywhere else (docs, comments, scripts' `dist/src/core/x.js`, `.dependency-cruiser.cjs`):
//   `core/x.ts` and `core/x.js`, with whatever comes before it (`src/`, `dist/test/`), and a moved folder
//   (`core/sweep/`).
// It can run again after more branches are merged (a mapping whose old path is gone and whose new one is there
// is done): a file added at an old place is named (add it to the mapping), and an import of a moved module from
// a file merged since is mended, resolved from the place the file had then.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const mappingFile = args.find((a) => !a.startsWith('--'));
if (!mappingFile) {
  console.error(
    'usage: node scripts/move-modules.mjs MAPPING.json [--dry-run]  (e.g. scripts/core-layout.json)',
  );
  process.exit(2);
}

const mappingPath = path.resolve(mappingFile);
const git = (...a) => execFileSync('git', a, { encoding: 'utf8', maxBuffer: 1 << 28 });
let root;
try {
  root = git('rev-parse', '--show-toplevel').trim();
} catch {
  console.error('move-modules: not inside a git checkout: run it from the repository');
  process.exit(2);
}
process.chdir(root);

let mapping;
try {
  mapping = JSON.parse(fs.readFileSync(mappingPath, 'utf8'));
} catch (err) {
  console.error(
    `move-modules: cannot read ${mappingFile} (${err.code ?? err.message}): give a JSON file of moves`,
  );
  process.exit(2);
}
if (!mapping || typeof mapping.moves !== 'object') {
  console.error(`move-modules: ${mappingFile} has no "moves" object ({ "old/path": "new/path" })`);
  process.exit(2);
}

const tracked = git('ls-files', '-z').split('\0').filter(Boolean);
const trackedSet = new Set(tracked);
const filesUnder = (dir) => tracked.filter((f) => f.startsWith(`${dir}/`));
const isDir = (p) => filesUnder(p).length > 0;
const exists = (p) => trackedSet.has(p) || isDir(p);

/** Every moved file: old path → new path, including those an earlier run moved already (done). */
const fileMap = new Map();
/** Moved folders, old → new, for references to a folder. */
const dirMap = new Map();
/** Files to `git mv` in this run: old → new. */
const toMove = new Map();
const problems = [];

for (const [from, to] of Object.entries(mapping.moves)) {
  const fromNow = exists(from);
  const toNow = exists(to);
  if (!fromNow && !toNow) {
    problems.push(`${from}: neither it nor ${to} exists: drop it from ${mappingFile} or fix the path`);
    continue;
  }
  const dir = isDir(from) || (!fromNow && isDir(to));
  if (dir) dirMap.set(from, to);
  const pairs = dir
    ? [
        ...filesUnder(from).map((f) => [f, to + f.slice(from.length), true]),
        ...filesUnder(to).map((f) => [from + f.slice(to.length), f, false]),
      ]
    : [[from, to, fromNow]];
  for (const [o, n, pending] of pairs) {
    fileMap.set(o, n);
    if (!pending) continue;
    if (trackedSet.has(n)) problems.push(`${o} → ${n}: ${n} exists already: choose another place`);
    else toMove.set(o, n);
  }
}
if (problems.length) {
  for (const p of problems) console.error(`move-modules: ${p}`);
  process.exit(1);
}

/** Where a tracked file will be after this run, and where it was before any move. */
const after = (p) => toMove.get(p) ?? p;
const oldOf = new Map([...fileMap].map(([o, n]) => [n, o]));

/** A path (a file or folder, old or current) → where it is after this run; null when nothing is there. */
function locate(p) {
  if (fileMap.has(p)) return fileMap.get(p);
  for (const [o, n] of dirMap) if (p === o || p.startsWith(`${o}/`)) return n + p.slice(o.length);
  if (trackedSet.has(p)) return after(p);
  if (isDir(p)) return p;
  return null;
}

/** A specifier's target: the file it names (`.js` names the `.ts` source), as it will be; null: not ours. */
function target(fromDir, spec) {
  const p = path.posix.normalize(path.posix.join(fromDir, spec));
  if (p.startsWith('..')) return null;
  const tries = spec.endsWith('.js') ? [p.replace(/\.js$/, '.ts'), p] : [p];
  for (const t of tries) {
    const found = locate(t);
    if (found) return { found, asTs: t !== p };
  }
  return null;
}

/**
 * Where the files of `dir` were before the moves: a moved folder's old place, or the one folder every file moved
 * into `dir` came from (src/core/reading ← src/core). A file merged into `dir` since (git follows a renamed
 * folder) still has the specifiers it was written with there.
 */
function formerDir(dir) {
  for (const [o, n] of dirMap) if (dir === n || dir.startsWith(`${n}/`)) return o + dir.slice(n.length);
  const from = new Set();
  for (const [o, n] of fileMap) if (path.posix.dirname(n) === dir) from.add(path.posix.dirname(o));
  return from.size === 1 ? [...from][0] : null;
}

/** The specifier written from where `file` will be; null when it names nothing of ours (`../dist/…`). */
function respecified(file, spec) {
  const beforeDir = oldOf.has(file)
    ? path.posix.dirname(oldOf.get(file))
    : formerDir(path.posix.dirname(file));
  const t = target(path.posix.dirname(file), spec) ?? (beforeDir ? target(beforeDir, spec) : null);
  if (!t) return null;
  const next = after(file);
  let rel = path.posix.relative(path.posix.dirname(next), t.found);
  if (t.asTs) rel = rel.replace(/\.ts$/, '.js');
  if (!rel.startsWith('.')) rel = `./${rel}`;
  if (spec.endsWith('/') && !rel.endsWith('/')) rel += '/';
  return rel;
}

// Tail forms (`core/x.ts`, `core/x.js`, `core/sweep/`) of every moved path under src/ or test/, and of the
// others whole; a tail two moves share is used whole only (`src/…`, `test/…`).
const tails = new Map();
const addTail = (o, n) => {
  const m = /^(?:src|test)\/(.*)$/.exec(o);
  const forms = [[o, n]];
  if (m) forms.push([m[1], n.slice(o.length - m[1].length)]);
  for (const [a, b] of forms) {
    if (tails.has(a) && tails.get(a) !== b) tails.set(a, null);
    else tails.set(a, b);
  }
};
for (const [o, n] of fileMap) {
  if (o === n) continue;
  addTail(o, n);
  if (/\.ts$/.test(o) && !o.endsWith('.d.ts')) addTail(o.replace(/\.ts$/, '.js'), n.replace(/\.ts$/, '.js'));
}
for (const [o, n] of dirMap) addTail(`${o}/`, `${n}/`);
const tailKeys = [...tails.keys()].filter((k) => tails.get(k) !== null).sort((a, b) => b.length - a.length);
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const tailRe = tailKeys.length
  ? new RegExp(`(?<![\\w.-])(?:${tailKeys.map(esc).join('|')})(?![\\w])`, 'g')
  : null;

const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const TEXT = /\.(ts|mts|cts|js|mjs|cjs|md|json|sh|py|yml|yaml|toml|txt)$|(^|\/)\.[^/]+\.c?js$/;
const SKIP = /^test\/fixtures\/(?!.*\.md$)|\.(log|jsonl)$|(^|\/)package-lock\.json$/;
const SPEC = /(['"])(\.\.?\/[^'"\n]*)\1/g;

// The mapping and this script name old paths on purpose.
const own = new Set([path.relative(root, mappingPath), path.relative(root, fileURLToPath(import.meta.url))]);
const changed = new Map();
for (const file of tracked) {
  if (!TEXT.test(file) || SKIP.test(file) || own.has(file)) continue;
  const text = fs.readFileSync(file, 'utf8');
  const kept = [];
  let out = text;
  if (CODE.test(file)) {
    // A specifier of ours is written once, and kept from the path forms below; another (`'../dist/src/core/x.js'`
    // in a script) is a path form like any text.
    out = out.replace(SPEC, (whole, q, spec) => {
      const next = respecified(file, spec);
      if (next === null) return whole;
      kept.push(`${q}${next}${q}`);
      return `\u0000${kept.length - 1}\u0000`;
    });
  }
  if (tailRe) out = out.replace(tailRe, (m) => tails.get(m));
  out = out.replace(/\u0000(\d+)\u0000/g, (_, i) => kept[Number(i)]);
  if (out !== text) changed.set(file, out);
}

const loose = [];
for (const dir of mapping.noLooseFiles ?? [])
  for (const f of filesUnder(dir))
    if (!f.slice(dir.length + 1).includes('/') && !toMove.has(f)) loose.push(f);

console.log(
  `move-modules: ${toMove.size} files to move (${fileMap.size - toMove.size} moved before), ${changed.size} files to rewrite${dryRun ? ' (dry run)' : ''}`,
);
for (const [o, n] of toMove) console.log(`  ${o} → ${n}`);
if (dryRun) for (const f of changed.keys()) console.log(`  rewrite ${f}`);
else {
  for (const [o, n] of toMove) {
    fs.mkdirSync(path.dirname(n), { recursive: true });
    git('mv', o, n);
  }
  // git mv leaves the folders it emptied behind.
  for (const o of toMove.keys())
    for (
      let d = path.dirname(o);
      d !== '.' && fs.existsSync(d) && fs.readdirSync(d).length === 0;
      d = path.dirname(d)
    )
      fs.rmdirSync(d);
  for (const [f, text] of changed) fs.writeFileSync(after(f), text);
}
for (const f of loose)
  console.error(
    `move-modules: ${f} is still at an old place: add where it goes to ${mappingFile} and run again`,
  );
process.exit(loose.length ? 1 : 0);
