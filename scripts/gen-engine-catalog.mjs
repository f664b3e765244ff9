#!/usr/bin/env node
// Generates src/core/engines/catalog/<source>.ts (ENGINES below) from the engine-source catalog
// (test/fixtures/engine-source/*.json: SGLang and vLLM copied from ../shared/research/engine-source/, the others
// built from their engines' trees as its README says; llama.cpp, Ollama and LMDeploy by scripts/engine-source/).
//
// usage: node scripts/gen-engine-catalog.mjs [--check]
//
// Each log template and raise message becomes a regex source: the literal text escaped, every placeholder
// (f-string `{expr}` / `{expr:.2f}` / `{}`, %-style `%s %d %.2f %r %(name)s`, and the names the source fills
// at run time, README §5) a non-greedy wildcard. Multi-line templates match their first line. Templates with
// too little literal text to be told apart from other lines are skipped (counted in the report printed here
// and by test/core/engines/engine-catalog.test.ts). `--check` fails when the committed files differ from the output.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC_DIR = 'test/fixtures/engine-source';
const OUT_DIR = 'src/core/engines/catalog';
const ENGINES = ['sglang', 'vllm', 'llamacpp', 'ollama', 'lmdeploy', 'trtllm', 'triton', 'tgi'];
/** Literal characters (whitespace aside) a template needs to be recognised safely. */
export const MIN_LITERAL = 10;
/** Leading literal characters the matcher's index keys on (src/core/engines/catalog-match.ts, KEY_PREFIX). */
const KEY_PREFIX = 6;

// Python %-style, C printf (`%zu`, `%lld`, `%.*s`, `%p`) and Go fmt (`%v`, `%+v`, `%w`, `%q`, `%t`) conversions
const PERCENT =
  /^%(?:\([^)]*\))?[-+#0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|ll|[hlLzjt](?=[diouxXeEfFgGcrsap]))?(?:[diouxXeEfFgGcrsap]|[vwqtT](?![a-zA-Z]))/;
const CLOSE = { '{': '}', '(': ')', '[': ']' };

/** Index of the `}` closing the `{` at i, or -1 (nested brackets and quoted strings skipped). */
function closing(t, i) {
  const stack = ['}'];
  let quote = null;
  for (let j = i + 1; j < t.length; j++) {
    const c = t[j];
    if (quote) {
      if (c === '\\') j++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (CLOSE[c]) stack.push(CLOSE[c]);
    else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return j;
    } else if (c === '\n') return -1;
  }
  return -1;
}

/** The template's first line as parts: strings are literal text, null a placeholder. */
export function parseTemplate(template) {
  const t = template.split('\n')[0].trimEnd();
  const parts = [];
  let lit = '';
  const hole = () => {
    if (lit) parts.push(lit);
    lit = '';
    if (parts[parts.length - 1] !== null) parts.push(null);
  };
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if ((c === '{' && t[i + 1] === '{') || (c === '}' && t[i + 1] === '}')) {
      lit += c;
      i++;
    } else if (c === '{') {
      const j = closing(t, i);
      if (j < 0) lit += c;
      else {
        hole();
        i = j;
      }
    } else if (c === '%' && t[i + 1] === '%') {
      lit += '%';
      i++;
    } else if (c === '%' && PERCENT.test(t.slice(i))) {
      hole();
      i += PERCENT.exec(t.slice(i))[0].length - 1;
    } else lit += c;
  }
  if (lit) parts.push(lit);
  while (parts.length && parts[parts.length - 1] === null) parts.pop();
  return parts;
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * What the matcher needs: the regex source, and the key the index files it under (the leading literal when
 * the template starts with one, else its longest literal, checked with `includes`).
 */
export function compile(template, level) {
  const parts = parseTemplate(template);
  const literal = parts
    .filter((p) => p !== null)
    .join('')
    .replace(/\s+/g, '');
  if (literal.length < MIN_LITERAL) return { skip: 'too little literal text' };
  // Placeholders capture: what the source filled in at run time (a wrapped error) can say more than the text.
  // Triton's LOG_TABLE_INFO rows (core/src/server.cc, TablePrinter) pad every cell to its column's width: a
  // run of spaces in a table template matches any run.
  const lit = (p) => (level === 'table' ? escapeRe(p).replace(/ +/g, ' +') : escapeRe(p));
  // A leading bracketed tag written into the message (TensorRT-LLM's `[Autotuner] …`, `[create_py_executor] …`,
  // the tensorrtllm backend's Python models printing `[TensorRT-LLM][WARNING] …`) is taken for the logger's own
  // tag by the frame reader (src/core/lines/prefix.ts), so the message may start after it.
  const tag = typeof parts[0] === 'string' ? /^(?:\[[\w .-]+\] ?)+/.exec(parts[0])?.[0] : undefined;
  const tagged = tag !== undefined && tag.length < parts[0].length;
  if (tagged) parts[0] = parts[0].slice(tag.length);
  const body =
    (tagged ? `(?:${escapeRe(tag)})?` : '') + parts.map((p) => (p === null ? '(.*?)' : lit(p))).join('');
  // Python's warnings module prints `file.py:N: UserWarning: <message>`: the message is not at the start.
  const anchored = parts[0] !== null && level !== 'pywarning';
  const re = anchored ? `^${body}` : body.replace(/^\(\.\*\?\)/, '');
  const lits = parts.filter((p) => p !== null);
  const longest = lits.reduce((a, b) => (b.trim().length > a.trim().length ? b : a), '');
  // `^lead` when the message must start with it (the index files it under its first characters), else a
  // literal the message must contain.
  // (A padded table row keeps no run of spaces as written: its key is its longest word.)
  const word = lits.flatMap((p) => p.split(/\s+/)).reduce((a, b) => (b.length > a.length ? b : a), '');
  // (A tagged message may come with its tag or without: its key is a literal it contains.)
  const key =
    level === 'table'
      ? word
      : !tagged && anchored && parts[0].length >= KEY_PREFIX
        ? `^${parts[0]}`
        : longest;
  return { re, key, weight: literal.length };
}

/**
 * Where a real log shows a catalog phase is wrong, the log wins. Keyed `engine:file.py:function`, with why.
 * The catalog places non-key lines by file and function; these functions run elsewhere than their file says.
 */
const PHASE_FIXES = {
  // Called by get_nvgpu_memory_capacity, which ServerArgs runs while resolving defaults (mem_fraction_static,
  // cuda graph sizes): real logs print it before `server_args=`, long before the KV pool is sized.
  'sglang:common.py:_cuda_mem_fallback': 'args',
};

/**
 * A GGML_ASSERT is ggml's and llama.cpp's check of an invariant of their own code (ggml.h: `GGML_ASSERT(x)` calls
 * ggml_abort with `GGML_ASSERT(x) failed`): a configuration error only where the condition reads what the user set
 * (common_params `params.…`, the context's `cparams.…` from -b/-ub/--pooling, the server's `ga_n`/`ga_w` and
 * `--tensor-split` list). Where the catalog classes one config_error for its message alone (`missing result_output
 * tensor`: an embedding model's graph run for generation; `graph must be allocated`; `index out of range`), the
 * check is the code's own: other, like the hundreds of GGML_ASSERT sites it leaves out.
 */
const USER_SET = /\b(?:c?params\.|split_arg\b|ga_[nw]\b)/;
function assertClass(r) {
  if (r.exception === 'GGML_ASSERT' && r.failure_class === 'config_error' && !USER_SET.test(r.template))
    return 'other';
  return r.failure_class;
}

function generate(engine) {
  const file = path.join(SRC_DIR, `${engine}.json`);
  const data = JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));
  const stats = { logs: 0, logsKept: 0, logsSkipped: 0, raises: 0, raisesKept: 0, raisesSkipped: 0 };
  // Key entries (checked by hand) and newer versions first, so a duplicate keeps the better-checked reading.
  const order = (a, b) => Number(Boolean(b.key)) - Number(Boolean(a.key));
  const logs = [];
  const seenLogs = new Set();
  for (const l of [...data.log_lines].sort(order)) {
    stats.logs++;
    const c = compile(l.template, l.level);
    if (c.skip) {
      stats.logsSkipped++;
      continue;
    }
    if (seenLogs.has(c.re)) continue;
    seenLogs.add(c.re);
    const base = l.file.split('/').pop();
    const phase = PHASE_FIXES[`${engine}:${base}:${l.function}`] ?? l.phase;
    logs.push([
      c.re,
      c.key,
      c.weight,
      phase,
      l.phase_scope ?? '',
      l.level,
      l.crash ? 1 : 0,
      `${base}:${l.function}`,
    ]);
  }
  const raises = [];
  const seenRaises = new Set();
  for (const r of [...data.raises].sort(order)) {
    stats.raises++;
    // llama.cpp's GGML_ASSERT(cond) sites (hundreds, internal invariants) whose class is `other`: the reader gives
    // an assertion line that class without them (llamacpp.ts ggml_abort), so their rows would only cost startup.
    if (r.exception === 'GGML_ASSERT' && assertClass(r) === 'other') {
      stats.asserts = (stats.asserts ?? 0) + 1;
      continue;
    }
    const c = compile(r.template, 'raise');
    if (c.skip) {
      stats.raisesSkipped++;
      continue;
    }
    const id = `${r.exception}\u0000${c.re}`;
    if (seenRaises.has(id)) continue;
    seenRaises.add(id);
    raises.push([c.re, c.key, c.weight, r.exception.split('.').pop(), r.failure_class, r.key ? 1 : 0]);
  }
  stats.logsKept = logs.length;
  stats.raisesKept = raises.length;
  const rows = (a) => a.map((r) => `    ${JSON.stringify(r)},`).join('\n');
  const text = `// Generated by scripts/gen-engine-catalog.mjs from ${file} (npm run gen:catalog). Do not edit.
// ${stats.logs} log templates (${stats.logsSkipped} skipped: too little literal text; duplicates merged), ${stats.raises} raises (${stats.raisesSkipped} skipped${stats.asserts ? `; ${stats.asserts} GGML_ASSERT sites of class other left out` : ''}).
import type { CatalogData } from '../catalog-types.js';

export const CATALOG: CatalogData = {
  // [regex source, index key, literal weight, phase, phase_scope, level, crash, "file:function"]
  logs: [
${rows(logs)}
  ],
  // [regex source, index key, literal weight, exception, failure_class, key (checked by hand)]
  raises: [
${rows(raises)}
  ],
};
`;
  return { text, stats };
}

const check = process.argv.includes('--check');
let stale = false;
for (const engine of ENGINES) {
  const { text, stats } = generate(engine);
  const out = path.join(ROOT, OUT_DIR, `${engine}.ts`);
  if (check) {
    if (!fs.existsSync(out) || fs.readFileSync(out, 'utf8') !== text) {
      console.error(`${out} is stale: run npm run gen:catalog`);
      stale = true;
    }
  } else {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, text);
  }
  console.log(engine, JSON.stringify(stats));
}
if (stale) process.exit(1);
