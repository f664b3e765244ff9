#!/usr/bin/env node
// Part of `npm run arch`: no file of the dashboard (web/: its ES modules, page scripts and style sheets) is over
// MAX_LINES lines. The dashboard has no build step, so a file is read as written: past this size a page has
// grown a second job, and is split (pages/table.js and pages/table-rows.js, detail.js and detail-blocks.js).
// Usage: node scripts/web-file-lines.mjs [webDir]   (exit 1, one line per file over the limit)
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const MAX_LINES = 400;

const dir = resolve(process.argv[2] ?? 'web');
let files;
try {
  files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(js|css|html)$/.test(e.name))
    .map((e) => join(e.parentPath ?? e.path, e.name));
} catch (err) {
  console.error(
    `web-file-lines: cannot read ${dir} (${err.code ?? err.message}): give the dashboard's folder (default: web/ in the current directory)`,
  );
  process.exit(2);
}
const over = [];
for (const file of files.sort()) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_LINES)
    over.push(`${relative(process.cwd(), file)}: ${lines} lines, over ${MAX_LINES}: split it by job`);
}
for (const line of over) console.error(`web-file-lines: ${line}`);
if (over.length === 0)
  console.log(`web-file-lines: ${files.length} dashboard files, none over ${MAX_LINES} lines`);
process.exit(over.length ? 1 : 0);
