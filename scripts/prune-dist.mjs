#!/usr/bin/env node
// After tsc: removes compiled files whose source is gone (a module moved or deleted). tsc never deletes
// outputs, so a moved test would otherwise still run from its old place in dist/test/ and fail there.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const COMPILED = /\.(js|js\.map|d\.ts|d\.ts\.map)$/;

function prune(distDir, srcDir) {
  if (!fs.existsSync(distDir)) return 0;
  let removed = 0;
  for (const entry of fs.readdirSync(distDir, { withFileTypes: true })) {
    const out = path.join(distDir, entry.name);
    if (entry.isDirectory()) {
      removed += prune(out, path.join(srcDir, entry.name));
      if (fs.readdirSync(out).length === 0) fs.rmdirSync(out);
      continue;
    }
    if (!COMPILED.test(entry.name)) continue;
    const stem = entry.name.replace(COMPILED, '');
    if (['.ts', '.mts', '.tsx'].some((ext) => fs.existsSync(path.join(srcDir, stem + ext)))) continue;
    fs.rmSync(out);
    removed++;
  }
  return removed;
}

const removed =
  prune(path.join(REPO, 'dist', 'src'), path.join(REPO, 'src')) +
  prune(path.join(REPO, 'dist', 'test'), path.join(REPO, 'test'));
if (removed > 0)
  process.stderr.write(`firedup build: removed ${removed} compiled files whose source is gone\n`);
