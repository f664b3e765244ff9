/**
 * What a paste does to a log must not turn its reading into a confident wrong one. Every real log of the corpus
 * is read again after the transformations real pastes undergo — hard-wrapped at 80 and 120 columns, ANSI colour
 * kept, CRLF line ends, timestamps taken out, the head cut (the fragment starts mid-launch), the tail cut just
 * before the exception line of a traceback — and the last launch's outcome and failure class are compared with
 * the plain reading. A cut may lower the confidence or the phase, never claim ready, serving or shut down.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { AnalysisReport } from '../../../src/core/reading/report.js';
import { analyzeText, SHARED } from '../../helpers.js';

const hardWrap = (w: number) => (t: string) =>
  t
    .split('\n')
    .flatMap((l) => {
      const out: string[] = [];
      for (let i = 0; i < l.length; i += w) out.push(l.slice(i, i + w));
      return out.length ? out : [l];
    })
    .join('\n');
const ansi = (t: string) =>
  t
    .split('\n')
    .map((l) =>
      l
        .replace(/\b(INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b/, '\x1b[32m$1\x1b[0m')
        .replace(/^(\S+)/, '\x1b[2m$1\x1b[0m'),
    )
    .join('\n');
const SG_STAMP = /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?((?: [A-Z]{2}\d+)*)\] /;
const STAMPS = [
  /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?Z?\s+/,
  /^\[\d\d\/\d\d\/\d{4}-\d\d:\d\d:\d\d\] /,
];
const stripStamps = (t: string) =>
  t
    .split('\n')
    .map((l) => {
      const m = SG_STAMP.exec(l);
      if (m) return (m[1] ? `[${m[1].trim()}] ` : '') + l.slice(m[0].length);
      for (const re of STAMPS) if (re.test(l)) return l.replace(re, '');
      return l.replace(
        /^((?:\([^)]*\) )?(?:INFO|WARNING|ERROR|DEBUG) )\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? /,
        '$1',
      );
    })
    .join('\n');

type Reading = {
  outcome: string | null;
  cls: string | null;
  conf: string | null;
  ev: number | null;
  tb: number | null;
};
const read = (r: AnalysisReport): Reading => {
  const l = r.launches.at(-1);
  const e = l?.failure?.evidence ?? [];
  return {
    outcome: l?.outcome ?? null,
    cls: l?.failure?.class ?? null,
    conf: l?.confidence ?? null,
    ev: l?.failure?.line ?? null,
    tb: e.length > 1 && /Traceback/.test(e[0]!.text) ? e[0]!.line : null,
  };
};

// the readings that may still differ (a long line wrapped before the wrap column is known, a stamp-less line
// that says less): measured 2026-12, kept as the bound so a regression shows
const BOUND: Record<string, number> = {
  wrap80: 5,
  wrap120: 3,
  ansi: 0,
  crlf: 0,
  stripStamps: 1,
  headCut: 0,
  tailCut: 0,
};

describe('paste robustness on the real corpus', () => {
  const cases: Array<{ name: string; text: string }> = [];
  for (const dir of ['sglang', 'vllm', 'extra', 'recent', 'full']) {
    const d = path.join(SHARED, 'corpus', dir);
    for (const f of fs.readdirSync(d).filter((x) => x.endsWith('.log')))
      cases.push({ name: `${dir}/${f}`, text: fs.readFileSync(path.join(d, f), 'utf8') });
  }
  const plain = new Map(cases.map((c) => [c.name, read(analyzeText(c.text))]));
  const same: Record<string, (t: string) => string> = {
    wrap80: hardWrap(80),
    wrap120: hardWrap(120),
    ansi,
    crlf: (t) => t.replace(/\n/g, '\r\n'),
    stripStamps,
  };

  for (const [name, f] of Object.entries(same)) {
    it(`${name}: the same outcome and failure class`, () => {
      const differ: string[] = [];
      for (const c of cases) {
        const base = plain.get(c.name)!;
        const got = read(analyzeText(f(c.text)));
        if (got.outcome !== base.outcome || got.cls !== base.cls)
          differ.push(`${c.name}: ${JSON.stringify(base)} → ${JSON.stringify(got)}`);
      }
      assert.ok(differ.length <= BOUND[name]!, `${differ.length} differ:\n${differ.join('\n')}`);
    });
  }

  it('headCut: a fragment that starts mid-launch keeps its outcome, or says less with less confidence', () => {
    const differ: string[] = [];
    for (const c of cases) {
      const base = plain.get(c.name)!;
      const ls = c.text.split('\n');
      const got = read(analyzeText(ls.slice(Math.floor(ls.length / 3)).join('\n')));
      const lower = got.outcome === 'in_progress' && got.conf !== 'high';
      if (
        (got.outcome !== base.outcome && !lower) ||
        (got.cls !== base.cls && got.conf === 'high' && got.cls && base.cls)
      )
        differ.push(`${c.name}: ${JSON.stringify(base)} → ${JSON.stringify(got)}`);
    }
    assert.ok(differ.length <= BOUND.headCut!, differ.join('\n'));
  });

  it('tailCut: a traceback cut before its exception line never reads ready, serving or shut down', () => {
    const differ: string[] = [];
    for (const c of cases) {
      const base = plain.get(c.name)!;
      if (base.outcome !== 'crashed' || base.ev === null || base.tb === null || base.tb >= base.ev - 1)
        continue;
      const got = read(
        analyzeText(
          c.text
            .split('\n')
            .slice(0, base.ev - 1)
            .join('\n'),
        ),
      );
      if (
        ['ready', 'serving', 'shutdown'].includes(got.outcome ?? '') ||
        (got.conf === 'high' && got.cls !== base.cls)
      )
        differ.push(`${c.name}: ${JSON.stringify(base)} → ${JSON.stringify(got)}`);
    }
    assert.ok(differ.length <= BOUND.tailCut!, differ.join('\n'));
  });
});

describe('hard-wrapped pastes', () => {
  const vllm = [
    "(APIServer pid=1) INFO 03-01 10:00:01 [utils.py:2] non-default args: {'model': 'org/model-with-a-long-name', 'tensor_parallel_size': 8, 'max_model_len': 262144}",
    '(EngineCore pid=2) INFO 03-01 10:00:03 [gpu_model_runner.py:4] Starting to load model org/model-with-a-long-name on eight GPUs...',
    '(EngineCore pid=2) INFO 03-01 10:00:40 [gpu_model_runner.py:5] Model loading took 61.5 GiB memory and 37.2 seconds of time, which is a lot',
    "(EngineCore pid=2) ERROR 03-01 10:00:41 [core.py:6] ValueError: To serve at least one request with the model's max seq len (262144), 18.35 GiB KV cache is needed, which is larger than the available KV cache memory (8.72 GiB).",
  ];
  const reading = (t: string) => {
    const l = analyzeText(t).launches.at(-1)!;
    return [l.outcome, l.phase, l.failure?.class ?? null, l.failure?.message ?? null];
  };

  it('a log wrapped at 80 columns reads as the unwrapped one once the column is known', () => {
    assert.deepEqual(reading(hardWrap(80)(vllm.join('\n'))), reading(vllm.join('\n')));
  });

  it("a box-drawn table's rows, all of one width, stay lines of their own (Triton's model table)", () => {
    const row = (name: string, status: string) => `| ${name.padEnd(16)} | 1       | ${status.padEnd(70)} |`;
    const t = [
      'I0524 03:33:13.130393 2517 server.cc:677]',
      `+${'-'.repeat(18)}+---------+${'-'.repeat(72)}+`,
      row('Model', 'Status'),
      `+${'-'.repeat(18)}+---------+${'-'.repeat(72)}+`,
      row('postprocessing', 'READY'),
      row('preprocessing', 'READY'),
      row('tensorrt_llm', 'UNAVAILABLE: Internal: out of memory (/src/runtime/tllmBuffers.h:112)'),
    ].join('\n');
    const l = analyzeText(t).launches.at(-1)!;
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'oom');
  });

  it('lines of one length in an unwrapped log are not joined with a framed line, a bar or a traceback', () => {
    const same = (i: number) =>
      `[2026-03-01 10:00:0${i} TP${i}] Load weight begin. avail mem=78.12 GB, rank ${i} of 8 ranks ok`;
    const lines = [
      same(0),
      same(1),
      same(2),
      same(3),
      'Loading safetensors checkpoint shards:  50% Completed | 1/2 [00:01<00:01,  1.16s/it]',
      same(4),
      'Traceback (most recent call last):',
      same(5),
      '  File "/x/sglang/srt/managers/scheduler.py", line 9, in run',
    ];
    const r = analyzeText(lines.join('\n'));
    const l = r.launches.at(-1)!;
    assert.equal(l.progress?.done, 1);
    assert.equal(l.failure?.line, 7);
  });

  it('lines of one length behind a gutter not known yet are not joined: each starts as the one before', () => {
    // `grep -n` over a TRT-LLM log: four lines of one length, then the error, which must stay a line of its own.
    const warm = (i: number) =>
      `${i + 1}:[05/30/2026-23:49:4${i}] [TRT-LLM] [I] Run generation only CUDA graph warmup for batch size=17${i}`;
    const lines = [
      ...[0, 1, 2, 3].map(warm),
      '5:[05/30/2026-23:49:47] [TRT-LLM] [E] Failed to initialize executor on rank 6: CUDA error: an illegal memory access was encountered',
    ];
    const l = analyzeText(`${lines.join('\n')}\n`).launches.at(-1)!;
    assert.equal(l.failure?.class, 'cuda_error');
    assert.equal(l.failure?.line, 5);
  });
});
