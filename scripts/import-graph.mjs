#!/usr/bin/env node
// Prints which layer (top folder) of src/ imports which, with counts of import statements; ↑ marks an import to the
// same floor or above (floors: errors < core < sources/probes/store/bench < app < cli/web).
// Usage: node scripts/import-graph.mjs [srcDir]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? 'src');
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) files.push(p);
  }
})(root);

const layerOf = (file) => {
  const rel = relative(root, file).split('/');
  return rel.length === 1 ? rel[0].replace(/\.ts$/, '') : rel[0];
};
const counts = new Map();
const re =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;
for (const file of files) {
  const src = readFileSync(file, 'utf8');
  const from = layerOf(file);
  for (const m of src.matchAll(re)) {
    const spec = m[1] ?? m[2];
    const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
    const to = layerOf(target);
    if (to === from) continue;
    const key = `${from} → ${to}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
}
// The floors, bottom up (see .dependency-cruiser.cjs): an import to the same floor or above is marked ↑.
const FLOOR = {
  errors: 0,
  core: 1,
  sources: 2,
  probes: 2,
  store: 2,
  bench: 2,
  config: 2,
  app: 3,
  cli: 4,
  web: 4,
};
const rows = [...counts].sort((a, b) => a[0].localeCompare(b[0]));
const byFrom = new Map();
let up = 0;
for (const [k, n] of rows) {
  const [from, to] = k.split(' → ');
  const wrong = (FLOOR[to] ?? 9) >= (FLOOR[from] ?? 9);
  if (wrong) up += n;
  if (!byFrom.has(from)) byFrom.set(from, []);
  byFrom.get(from).push(`${wrong ? '↑' : ''}${to} ${n}`);
}
for (const [from, tos] of byFrom) console.log(`${from.padEnd(8)} → ${tos.join(', ')}`);
console.log(`imports to the same floor or above (↑): ${up}`);
