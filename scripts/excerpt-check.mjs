#!/usr/bin/env node
/**
 * Excerpt check: how firedup reads SHORT windows cut out of its labelled real logs (issue 22: fresh pastes are
 * search excerpts of 2-28 lines, not the longer fragments of the corpora). A robustness check on windows of known
 * logs, not an accuracy figure: each window is a real excerpt, but which windows a user would paste is not known,
 * and the expectations below are what the window itself can show.
 *
 *   npm run build && node scripts/excerpt-check.mjs [--tight] [--show KIND] [--case ID] [--json FILE] [DIR...]
 *
 * Cases: every labels.jsonl under ../shared/corpus and test/fixtures/{wild,unseen-2026-12-02,unseen-2026-12-03,
 * unseen-2026-12-03b} (or the DIRs given). Each window is read in-process (dist/, year 2026) and its last launch
 * is checked against the label:
 *  - crashed, evidence line e and a class: lines [e-k, e+2], k = 2, 5, 10, 20 (clamped): outcome crashed, the
 *    label's failure class, the label's engine (null and WRONG counted apart);
 *  - crashed, e and no class: the same windows, outcome crashed or in_progress, engine;
 *  - ready, e: 3, 8 and 15 lines ending at e and at the file's end: outcome ready or serving, engine;
 *  - every case: the last 5, 12 and 25 lines: engine right or null (wrong is the worst);
 *  - a crash window may not report a phase later than the label's last_phase (a confident wrong phase);
 *  - `--tight` adds crash windows of 2-4 lines: [e-1, e+1], [e, e+1], [e-3, e] (the shortest pastes).
 * `--json FILE` writes every miss (kind, case, window, field, reading) to compare two builds' runs.
 * Identical windows of one case are read once. A miss whose full-file reading misses the same field is counted
 * apart (`full-file miss too`): it is not what excerpting did. Misses are grouped by KIND, a guess from what the
 * window holds (an engine frame path, the engine's name, the full reading's failure line, a traceback header);
 * `--show KIND` prints those windows with their readings.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (!fs.existsSync(path.join(ROOT, 'dist/src/core/reading/analyzer.js'))) {
  console.error('excerpt-check: dist/ is not built here: run `npm run build` first');
  process.exit(2);
}
// the windows and their checks are the test's (test/excerpt-windows.ts), as the suite bounds them
const { checkWindow, readWindow, windowsOf } = await import(path.join(ROOT, 'dist/test/excerpt-windows.js'));
const { readLabels } = await import(path.join(ROOT, 'dist/test/labels.js'));

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return null;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const SHOW = opt('--show');
const ONLY = opt('--case');
const JSON_OUT = opt('--json');
const TIGHT = args.includes('--tight');
if (TIGHT) args.splice(args.indexOf('--tight'), 1);

function labelDirs(roots) {
  const out = [];
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    if (fs.existsSync(path.join(d, 'labels.jsonl'))) out.push(d);
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)))
      if (e.isDirectory()) walk(path.join(d, e.name));
  };
  for (const r of roots) walk(r);
  return out;
}
const roots = args.length
  ? args
  : [
      path.join(ROOT, '..', 'shared', 'corpus'),
      ...['wild', 'unseen-2026-12-02', 'unseen-2026-12-03', 'unseen-2026-12-03b'].map((d) =>
        path.join(ROOT, 'test', 'fixtures', d),
      ),
    ];

// What an engine's own text looks like in a window (for the kinds only: the reader never sees these).
const FRAME = {
  sglang: /sglang[/\\.]srt|\/sglang\/|sgl_kernel|sglang\.launch_server/,
  vllm: /[/\\]vllm[/\\]|vllm\.(?:entrypoints|engine|v1|worker|model_executor)|\(EngineCore|\(APIServer|\(VllmWorker|\bvllm serve\b/,
  trtllm: /tensorrt_llm|trtllm|TRT-LLM|tritonserver/i,
  tgi: /text_generation_server|text_generation_launcher|text_generation_router|text-generation-launcher/,
  llamacpp:
    /llama_model_load|llama_context|ggml_|llama-server|llama_init|load_tensors|srv +\w+:|slot +\w+:|main: /,
};
const NAME = {
  sglang: /sglang/i,
  vllm: /vllm/i,
  trtllm: /tensorrt|trtllm|trt-llm/i,
  tgi: /text.generation|\btgi\b/i,
  llamacpp: /llama\.cpp|llama-server|llama_|ggml/i,
};
const TB_HEAD = /Traceback \(most recent call last\)/;
// a window whose last line is a traceback's frame or source line: its exception line is after the window
const IN_FRAMES = /^\s*(?:File ["'].*, line \d+|\S.*\bline \d+, in \S+$)|^\s{2,}\S|^\s*[~^]+\s*$/;
const cutInTraceback = (text) => {
  const ls = text.trimEnd().split('\n');
  return TB_HEAD.test(text) && IN_FRAMES.test(ls.at(-1) ?? '');
};

const stats = {}; // field -> {n, ok, okFull, fullMiss}
const byEngine = {}; // engine -> field -> {n, ok}
const kinds = new Map(); // kind -> [{id, win, field, got, want}]
const count = (field, engine, good, fullGood) => {
  const s = (stats[field] ??= { n: 0, ok: 0, fullMiss: 0, nx: 0, okx: 0 });
  s.n++;
  if (good) s.ok++;
  if (!fullGood) s.fullMiss++;
  else {
    s.nx++;
    if (good) s.okx++;
  }
  const e = ((byEngine[engine ?? 'null'] ??= {})[field] ??= { n: 0, ok: 0 });
  e.n++;
  if (good) e.ok++;
};
// the window being read: whether any field missed, and whether a miss was the excerpt's (full file right)
let cur = { wrong: false, excerpt: false };
const miss = (kind, rec) => {
  if (!kinds.has(kind)) kinds.set(kind, []);
  kinds.get(kind).push(rec);
  cur.wrong = true;
  if (!kind.includes('full-file miss')) cur.excerpt = true;
};
const windowsRight = {}; // sort -> {n, ok, okx}
const countWindow = (sort) => {
  const w = (windowsRight[sort] ??= { n: 0, ok: 0, noExcerptMiss: 0 });
  w.n++;
  if (!cur.wrong) w.ok++;
  if (!cur.excerpt) w.noExcerptMiss++;
};

function engineKind(label, text, got, fullGood) {
  if (!fullGood) return 'engine: full-file miss too';
  if (got !== null) return `engine WRONG: ${got} for ${label.engine}`;
  const want = label.engine;
  if (FRAME[want]?.test(text)) return 'engine null: the window shows an engine frame/line shape';
  if (NAME[want]?.test(text)) return 'engine null: the window names the engine';
  return 'engine null: only known from lines outside the window';
}

/** What a miss is, from what the window holds (see the doc comment): its kind. */
function kindOf(check, label, text, w, got, full, fullGood) {
  const f = check.field;
  if (f.startsWith('tail engine') || / engine/.test(f)) return engineKind(label, text, got.engine, fullGood);
  if (f === 'ready outcome')
    return fullGood ? `ready outcome: ${got.outcome}` : 'ready outcome: full-file miss too';
  const fullLineIn = full.failLine !== null && full.failLine >= w.a && full.failLine <= w.b;
  const header = TB_HEAD.test(text) ? '' : ' (no traceback header)';
  if (f.startsWith('crash outcome')) {
    if (!fullGood) return 'crash outcome: full-file miss too';
    return fullLineIn
      ? `crash outcome ${got.outcome}: the full reading's failure line is in the window${header}`
      : `crash outcome ${got.outcome}: the full reading's failure line is outside the window`;
  }
  if (f === 'crash failure_class') {
    if (!fullGood) return 'class: full-file miss too';
    const what = got.cls === null ? 'null' : 'WRONG';
    if (cutInTraceback(text))
      return `class ${what}: the window ends inside the traceback, before its exception line`;
    return fullLineIn
      ? `class ${what}: the full reading's failure line is in the window${header}`
      : `class ${what}: only known from a line outside the window`;
  }
  return fullGood ? `phase later: ${got.phase} > ${label.last_phase}` : 'phase later: full-file miss too';
}

let cases = 0;
let windows = 0;
for (const dir of labelDirs(roots)) {
  for (const { label, file } of readLabels(dir)) {
    if (ONLY && label.id !== ONLY) continue;
    if (!fs.existsSync(file)) continue;
    cases++;
    let lines = fs.readFileSync(file, 'utf8').split('\n');
    if (lines.at(-1) === '') lines = lines.slice(0, -1);
    const full = readWindow(`${lines.join('\n')}\n`);
    for (const w of windowsOf(label, lines.length, TIGHT)) {
      windows++;
      cur = { wrong: false, excerpt: false };
      const text = `${lines.slice(w.a - 1, w.b).join('\n')}\n`;
      const got = readWindow(text);
      const fullGood = new Map(checkWindow(label, w, full).map((c) => [c.field, c.good]));
      // (a field the full reading does not have, `… engine null`, shares the engine check's answer)
      const fullOf = (f) => fullGood.get(f) ?? fullGood.get(f.replace(/ (?:null|WRONG)$/, '')) ?? true;
      for (const c of checkWindow(label, w, got)) {
        const fg = fullOf(c.field);
        count(c.field, label.engine, c.good, fg);
        if (c.good || / (?:null|WRONG)$/.test(c.field)) continue;
        miss(kindOf(c, label, text, w, got, full, fg), {
          id: label.id,
          file,
          a: w.a,
          b: w.b,
          field: c.field,
          got,
          full,
          label,
        });
      }
      countWindow(w.sort);
    }
  }
}

const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)}%` : '-');
console.log(`${cases} cases, ${windows} windows`);
console.log(
  `${'field'.padEnd(36)} ${'right'.padStart(11)}        excerpt-only (full file right)   full-file miss too`,
);
for (const [f, s] of Object.entries(stats)) {
  if (/ (null|WRONG)$/.test(f)) {
    console.log(
      `  ${f.padEnd(34)} ${String(s.n).padStart(11)} misses (${s.n - s.fullMiss} where the full file is right)`,
    );
    continue;
  }
  console.log(
    `${f.padEnd(36)} ${`${s.ok}/${s.n}`.padStart(11)} ${pct(s.ok, s.n).padStart(6)}   ${`${s.okx}/${s.nx}`.padStart(11)} ${pct(s.okx, s.nx).padStart(6)}   ${String(s.fullMiss).padStart(8)}`,
  );
}
console.log('\nwindows with every checked field right (and with no miss the full file does not share):');
for (const [sort, w] of Object.entries(windowsRight))
  console.log(
    `${`${sort} windows`.padEnd(36)} ${`${w.ok}/${w.n}`.padStart(11)} ${pct(w.ok, w.n).padStart(6)}   ${`${w.noExcerptMiss}/${w.n}`.padStart(11)} ${pct(w.noExcerptMiss, w.n).padStart(6)}`,
  );
console.log('\nper engine (label), right/windows:');
const fields = Object.keys(stats).filter((f) => !/ (null|WRONG)$/.test(f));
console.log(`${'engine'.padEnd(10)} ${fields.map((f) => f.padStart(Math.max(12, f.length))).join(' ')}`);
for (const [eng, fs_] of Object.entries(byEngine).sort())
  console.log(
    `${eng.padEnd(10)} ${fields.map((f) => (fs_[f] ? pct(fs_[f].ok, fs_[f].n) : '-').padStart(Math.max(12, f.length))).join(' ')}`,
  );
console.log('\nmisses by kind (windows, cases):');
for (const [k, recs] of [...kinds].sort((x, y) => y[1].length - x[1].length)) {
  const ids = [...new Set(recs.map((r) => r.id))];
  console.log(
    `${String(recs.length).padStart(5)} ${String(ids.length).padStart(4)}  ${k}: ${ids.slice(0, 6).join(' ')}${ids.length > 6 ? ' …' : ''}`,
  );
}
if (SHOW) {
  for (const [k, recs] of kinds) {
    if (!k.includes(SHOW)) continue;
    for (const r of recs) {
      const lines = fs.readFileSync(r.file, 'utf8').split('\n');
      console.log(
        `\n=== ${k} | ${r.id} [${r.a},${r.b}] ${r.field}: got ${JSON.stringify(r.got)} full ${JSON.stringify(r.full)} label ${JSON.stringify({ engine: r.label.engine, outcome: r.label.outcome, phase: r.label.last_phase, cls: r.label.failure_class, e: r.label.evidence_line })}`,
      );
      for (let i = r.a; i <= r.b; i++) console.log(`${String(i).padStart(5)}| ${lines[i - 1].slice(0, 220)}`);
    }
  }
}
if (JSON_OUT)
  fs.writeFileSync(
    JSON_OUT,
    JSON.stringify(
      [...kinds].flatMap(([k, recs]) =>
        recs.map((r) => ({ kind: k, id: r.id, a: r.a, b: r.b, field: r.field, got: r.got })),
      ),
      null,
      1,
    ),
  );
