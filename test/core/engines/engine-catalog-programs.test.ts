/**
 * The catalogs of programs without an engine module (test/fixtures/engine-source/{ollama,lmdeploy}.json, read
 * from their sources; see the README there), read through the program-keyed entry points of catalog-match.ts:
 * every startup-path template, filled with sample values and printed as the program prints it, must come back
 * from `catalogLine(program, line)` at its phase, and every raise be classed as the catalog says.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type CatalogProgram,
  catalogLine,
  catalogProgram,
  catalogRaiseClass,
} from '../../../src/core/engines/catalog-match.js';
import { lookupFrame } from '../../../src/core/engines/frames/index.js';
import { fill, literalLength, loadSource, MIN_LITERAL, type SourceLog } from './catalog-samples.js';

const LEVEL: Record<string, string> = { info: 'INFO', warning: 'WARN', error: 'ERROR', fatal: 'ERROR' };

/** The line as the program prints it (see each catalog's field_notes). */
function frame(program: CatalogProgram, e: SourceLog, msg: string): string {
  const base = e.file.split('/').pop()!;
  if (program === 'ollama') {
    // slog's text handler quotes a message with spaces or quotes (Go strconv.Quote; JSON's escaping for ASCII)
    if (e.format === 'slog')
      return `time=2026-08-21T10:00:00.000Z level=${LEVEL[e.level] ?? 'INFO'} source=${base}:123 msg=${JSON.stringify(msg)} model=/root/.ollama/models/blobs/sha256-0`;
    // v0.1.x ext_server (llm/ext_server/utils.hpp server_log): JSON, keys sorted
    if (e.format === 'server_log')
      return `{"function":"${e.function || 'main'}","level":"${LEVEL[e.level] ?? 'INFO'}","line":123,"msg":${JSON.stringify(msg)},"tid":"140123","timestamp":1713200000}`;
    if (e.level === 'print' || e.level === 'fatal') return `2024/04/16 10:00:00 ${msg}`;
    return msg;
  }
  if (e.level === 'print') return msg;
  if (e.level === 'pywarning')
    return `/opt/venv/lib/python3.12/site-packages/${e.file}:123: UserWarning: ${msg}`;
  if (e.format === 'turbomind')
    return `[TM][${e.level === 'warning' ? 'WARNING' : e.level.toUpperCase()}] ${msg}`;
  const level =
    { warning: 'WARNING', error: 'ERROR', exception: 'ERROR', critical: 'CRITICAL' }[e.level] ?? 'INFO';
  // lmdeploy/utils.py get_logger: the file:line part from 2025 on
  if (e.versions.length === 1 && e.versions[0] === 'v0.4.2')
    return `2024-05-27 10:00:00,123 - lmdeploy - ${level} - ${msg}`;
  return `2026-08-21 10:00:00,123 - lmdeploy - ${level} - ${base}:123 - ${msg}`;
}

for (const program of ['ollama', 'lmdeploy'] as const) {
  test(`${program}: startup-path log templates are found at their catalog phase`, () => {
    const cat = loadSource(program);
    const entries = cat.log_lines.filter(
      (e) => e.phase !== 'serving' && e.phase !== 'shutdown' && e.phase_scope !== 'any',
    );
    let ok = 0;
    let skipped = 0;
    const misses: string[] = [];
    for (const e of entries) {
      if (literalLength(e.template) < MIN_LITERAL) {
        skipped++;
        continue;
      }
      const hit = catalogLine(program, frame(program, e, fill(e.template)));
      if (hit?.phase === e.phase) ok++;
      else
        misses.push(
          `${e.phase} got ${hit?.phase ?? null} (${hit?.source ?? ''}) ${e.file}:${e.function}: ${fill(e.template).slice(0, 100)}`,
        );
    }
    const read = entries.length - skipped;
    console.log(
      `${program}: ${ok}/${read} startup templates found at their phase (${((100 * ok) / read).toFixed(1)} %), ${skipped} skipped (too little literal text)`,
    );
    if (process.env.CATALOG_MISSES) console.log(misses.join('\n'));
    assert.ok(ok / read >= 0.95, `${misses.length} misses:\n${misses.slice(0, 60).join('\n')}`);
  });

  test(`${program}: raises are classed as the catalog says`, () => {
    const cat = loadSource(program);
    let ok = 0;
    let skipped = 0;
    const misses: string[] = [];
    for (const r of cat.raises) {
      // too little text to match, or an assertion of class other the generator leaves out (gen-engine-catalog.mjs)
      if (
        literalLength(r.template) < MIN_LITERAL ||
        (r.exception === 'GGML_ASSERT' && r.failure_class === 'other')
      ) {
        skipped++;
        continue;
      }
      const got = catalogRaiseClass(program, r.exception, fill(r.template));
      if (got === r.failure_class) ok++;
      else misses.push(`${r.failure_class} got ${got}: ${r.exception}: ${fill(r.template).slice(0, 120)}`);
    }
    const read = cat.raises.length - skipped;
    console.log(
      `${program}: ${ok}/${read} raises classed as the catalog says (${((100 * ok) / read).toFixed(1)} %), ${skipped} skipped`,
    );
    if (process.env.CATALOG_MISSES) console.log(misses.join('\n'));
    assert.ok(ok / read >= 0.9, `${misses.length} misses:\n${misses.slice(0, 60).join('\n')}`);
  });
}

test('ollama: the runner relays llama.cpp lines, found in the llamacpp catalog', () => {
  assert.equal(
    catalogLine(
      'ollama',
      'llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from /m (version GGUF V3 (latest))',
    )?.phase,
    'loading_weights',
  );
  assert.equal(
    catalogLine(
      'ollama',
      'time=2026-08-21T10:00:00.000Z level=INFO source=routes.go:2008 msg="Listening on 127.0.0.1:11434 (version 0.33.0)"',
    )?.phase,
    'ready',
  );
});

test('a program name finds its catalog', () => {
  assert.equal(catalogProgram('/usr/local/bin/ollama'), 'ollama');
  assert.equal(catalogProgram('lmdeploy'), 'lmdeploy');
  assert.equal(catalogProgram('python3'), null);
});

test('lmdeploy: every frame row names its phase for an installed package path', () => {
  const cat = loadSource('lmdeploy');
  let ok = 0;
  const misses: string[] = [];
  for (const f of cat.frames) {
    if (f.function.includes('*')) {
      ok++;
      continue;
    }
    const fn = f.function.split('.').pop()!;
    const v = lookupFrame('lmdeploy', `/opt/venv/lib/python3.12/site-packages/lmdeploy/x/${f.file}`, fn);
    if (v.kind === 'phase' && v.phase === f.phase) ok++;
    else misses.push(`${f.phase} got ${v.kind === 'phase' ? v.phase : v.kind}: ${f.file} ${f.function}`);
  }
  console.log(`lmdeploy: ${ok}/${cat.frames.length} frames read at their phase`);
  if (process.env.CATALOG_MISSES) console.log(misses.join('\n'));
  assert.ok(ok / cat.frames.length >= 0.9, misses.join('\n'));
});
