#!/usr/bin/env node
// Prints which layer of src/ imports which (counts of import statements), and the imports that point the wrong way.
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
const rows = [...counts].sort((a, b) => a[0].localeCompare(b[0]));
const byFrom = new Map();
for (const [k, n] of rows) {
  const [from, to] = k.split(' → ');
  if (!byFrom.has(from)) byFrom.set(from, []);
  byFrom.get(from).push(`${to} ${n}`);
}
for (const [from, tos] of byFrom) console.log(`${from.padEnd(8)} → ${tos.join(', ')}`);
