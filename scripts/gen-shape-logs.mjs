#!/usr/bin/env node
// Big serving logs built from real lines (scripts/bench-seeds/, see extract-bench-seeds.mjs), one per line
// shape, for `npm run bench`: the seed's launch lines once, then its serving lines over and over, their
// numbers varied and their stamps moving forward, to the size asked.
//
// usage: node scripts/gen-shape-logs.mjs SHAPE OUT [--bytes N] [--seed S]
//
// Output is a pure function of (seed file, N, seed). Whole lines; about N bytes.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rng } from './gen-serving-log.mjs';

export const SHAPE_GENERATOR_VERSION = 2;
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SEED_DIR = path.join(REPO, 'scripts/bench-seeds');

/** The shapes with a seed, in the bench's order (the seed files' names). */
export function shapeNames() {
  return fs
    .readdirSync(SEED_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
}

export function readSeed(name) {
  return JSON.parse(fs.readFileSync(path.join(SEED_DIR, `${name}.json`), 'utf8'));
}

// A line's stamp: `YYYY-MM-DD HH:MM:SS`, vLLM's `MM-DD HH:MM:SS`, ISO `...THH:MM:SS.ffffffZ`, GIN's
// `YYYY/MM/DD - HH:MM:SS`, or a bare `HH:MM:SS`; any fraction kept at its width.
const STAMP =
  /(?<![\d.])(?:(\d{4})([-/]))?(?:(\d\d)[-/](\d\d)( - |[ T]))?(\d\d):(\d\d):(\d\d)(?:([.,])(\d+))?(?![\d:])/;
// A value: a number after `: ` or `=` (with padding); not a pid, a port or a source line (`file.py:N`).
const VALUE = /((?<!pid)(?:: +|=) *)(\d+)(\.\d+)?(?![\d.:])/g;

const pad = (n, w) => String(n).padStart(w, '0');

/** A template of a line: its text split around its stamp (null: none), and its stamp's layout. */
function template(text) {
  const m = STAMP.exec(text);
  if (m === null || m.index > 80) return { head: text, tail: null, layout: null, at: null };
  const [, year, ysep, mon, day, dsep, hh, mm, ss, fsep, frac] = m;
  const at = Date.UTC(
    year ? Number(year) : 2025,
    mon ? Number(mon) - 1 : 0,
    day ? Number(day) : 1,
    +hh,
    +mm,
    +ss,
  );
  return {
    head: text.slice(0, m.index),
    tail: text.slice(m.index + m[0].length),
    layout: { year: !!year, ysep, md: !!mon, dsep, fsep, fw: frac?.length ?? 0 },
    at,
  };
}

function stampText(layout, ms, r) {
  const d = new Date(ms);
  let s = '';
  if (layout.year) s += `${d.getUTCFullYear()}${layout.ysep}`;
  if (layout.md)
    s += `${pad(d.getUTCMonth() + 1, 2)}${layout.ysep ?? '-'}${pad(d.getUTCDate(), 2)}${layout.dsep}`;
  s += `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
  if (layout.fsep) s += layout.fsep + pad(Math.floor(r() * 10 ** layout.fw), layout.fw);
  return s;
}

/** The text with its values varied: a digit more or less before the point, as many after it. */
function vary(text, r) {
  return text.replace(VALUE, (_, pre, int, frac) => {
    // widths vary as a busy server's numbers do (all lines of one length would read as a hard-wrapped paste)
    const w = Math.max(1, int.length + Math.floor(r() * 3) - 1);
    // a fraction of one (token usage 0.25) stays one
    if (int === '0' && frac)
      return `${pre}0.${pad(Math.floor(r() * 10 ** (frac.length - 1)), frac.length - 1)}`;
    const lo = w === 1 ? 0 : 10 ** (w - 1);
    let v = String(lo + Math.floor(r() * (10 ** w - lo)));
    if (frac) v += `.${pad(Math.floor(r() * 10 ** (frac.length - 1)), frac.length - 1)}`;
    return pre + v;
  });
}

const VARIANTS = 32;

export function generateShapeLog(name, outPath, { bytes = 3e8, seed = 1 } = {}) {
  const s = readSeed(name);
  const r = rng(seed);
  const tmp = `${outPath}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  let written = 0;
  let buf = [];
  let bufLen = 0;
  const flush = () => {
    const chunk = Buffer.from(buf.join(''), 'utf8');
    fs.writeSync(fd, chunk);
    written += chunk.length;
    buf = [];
    bufLen = 0;
  };
  const put = (line) => {
    buf.push(line, '\n');
    bufLen += line.length + 1;
    if (bufLen > 1 << 20) flush();
  };
  try {
    for (const l of s.launch.lines) put(l);
    // Each serving line: its variants' texts around the stamp, and its stamp's offset from the seed's first.
    const tpls = s.serving.map((l) => template(l.text));
    const t0 = tpls.find((t) => t.at !== null)?.at ?? null;
    const variants = tpls.map((t) =>
      Array.from({ length: VARIANTS }, () => ({
        head: t.head,
        tail: t.tail === null ? null : vary(t.tail, r),
      })).map((v) => (t.tail === null ? { head: vary(t.head, r), tail: null } : v)),
    );
    // One pass of the seed spans its own time; the next starts a second after it ends.
    const span = t0 === null ? 0 : Math.max(0, ...tpls.map((t) => (t.at === null ? 0 : t.at - t0))) + 1000;
    for (let pass = 0; written + bufLen < bytes; pass++) {
      for (let i = 0; i < tpls.length && written + bufLen < bytes; i++) {
        const t = tpls[i];
        const v = variants[i][Math.floor(r() * VARIANTS)];
        if (v.tail === null) put(v.head);
        else put(v.head + stampText(t.layout, t.at + pass * span, r) + v.tail);
      }
    }
    flush();
    fs.closeSync(fd);
    fs.renameSync(tmp, outPath);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [name, out, ...rest] = process.argv.slice(2);
  if (!name || !out) {
    process.stderr.write(
      `usage: gen-shape-logs.mjs SHAPE OUT [--bytes N] [--seed S]\nshapes: ${shapeNames().join(', ')}\n`,
    );
    process.exit(2);
  }
  const opt = { bytes: 3e8, seed: 1 };
  for (let i = 0; i < rest.length; i += 2) opt[rest[i].replace(/^--/, '')] = Number(rest[i + 1]);
  generateShapeLog(name, out, opt);
}
