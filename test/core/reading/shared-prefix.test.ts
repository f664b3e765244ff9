/**
 * Lines several engines print alike (uvicorn's lifecycle and access lines, tqdm bars, NCCL, torch warnings) read
 * before any line names the engine: once one does, they are read again with that engine's rules
 * (LogAnalyzer.prefix), not with the rules of the engine that comes first in the list. Made-up lines.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogAnalyzer } from '../../../src/core/reading/analyzer.js';
import { analyzeText } from '../../helpers.js';

const UVICORN = [
  'INFO:     Started server process [4410]',
  'INFO:     Waiting for application startup.',
  'INFO:     Application startup complete.',
  'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
  'INFO:     10.0.3.7:50122 - "POST /v1/completions HTTP/1.1" 200 OK',
  'INFO:     10.0.3.7:50124 - "POST /v1/completions HTTP/1.1" 200 OK',
];
/**
 * SGLang's own warm-up request (http_server.py _wait_and_warmup posts to /generate, or /encode): an OpenAI-API
 * request answered before `fired up` is a client's, served.
 */
const WARMUP_ACCESS = 'INFO:     127.0.0.1:50120 - "POST /generate HTTP/1.1" 200 OK';
const text = (lines: string[]) => `${lines.join('\n')}\n`;
const TRT_LINE = '[05/21/2025-09:14:02] [TRT-LLM] [W] Logprobs are not supported, ignoring';
/** A bare `[date time]` stamp: a shape SGLang prints, but so do others (worth 1 for SGLang, engines/evidence.ts). */
const WEAK_SGLANG = '[2025-05-21 09:13:58] starting the container entrypoint';

/** Reads `data` whole, then cut at every line and resumed from a checkpoint: the same report each time. */
function sameAtEveryCut(data: Buffer) {
  const whole = new LogAnalyzer({ year: 2026 });
  whole.push(data);
  const want = whole.end();
  const nl: number[] = [];
  for (let i = 0; i < data.length; i++) if (data[i] === 10) nl.push(i + 1);
  for (const cut of nl.slice(0, -1)) {
    const a = new LogAnalyzer({ year: 2026 });
    a.push(data.subarray(0, cut));
    const b = LogAnalyzer.restore(a.checkpoint(), { year: 2026 });
    b.push(data.subarray(cut));
    assert.deepEqual(b.end(), want, `cut at byte ${cut}`);
  }
  return want;
}

describe('shared lines before the engine shows itself', () => {
  it('trtllm-serve: access lines answered 200 before its first line are requests served, not warm-up', () => {
    // trtllm-serve (serve/openai_server.py) runs uvicorn and has no warm-up request: a 2xx answer is a request
    // served; SGLang's access lines before `fired up` are its own warm-up request (http_server.py _wait_and_warmup).
    const r = analyzeText(
      text([...UVICORN, '[05/21/2025-09:14:02] [TRT-LLM] [W] Logprobs are not supported, ignoring']),
    );
    assert.equal(r.engine, 'trtllm');
    assert.equal(r.launches.at(-1)?.phase, 'serving');
  });

  it('vLLM: `Application startup complete.` before its first framed line says ready', () => {
    // vLLM's serve_http (entrypoints/launcher.py) starts uvicorn once the engine is up: its startup is readiness.
    const r = analyzeText(
      text([
        ...UVICORN.slice(0, 3),
        "WARNING 05-21 10:01:15 [protocol.py:58] The following fields were present in the request but ignored: {'x'}",
      ]),
    );
    assert.equal(r.engine, 'vllm');
    assert.equal(r.launches.at(-1)?.phase, 'ready');
    assert.equal(r.launches.at(-1)?.outcome, 'ready');
  });

  it('SGLang keeps its reading: access lines before `fired up` are warm-up', () => {
    const r = analyzeText(
      text([
        ...UVICORN.slice(0, 4),
        WARMUP_ACCESS,
        '[2025-05-21 09:30:02 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0',
      ]),
    );
    assert.equal(r.engine, 'sglang');
    assert.equal(r.launches.at(-1)?.phase, 'warmup');
  });

  it('shared lines alone name no engine and read with low confidence', () => {
    const r = analyzeText(text(UVICORN));
    assert.equal(r.engine, null);
    assert.equal(r.launches.length, 1);
    assert.notEqual(r.launches[0]?.confidence, 'high');
  });

  it('a checkpoint inside the shared prefix, or right after the line that names the engine, reads the same', () => {
    const data = Buffer.from(
      text([
        ...UVICORN,
        '[05/21/2025-09:14:02] [TRT-LLM] [W] Logprobs are not supported, ignoring',
        UVICORN[4]!,
      ]),
    );
    const whole = new LogAnalyzer({ year: 2026 });
    whole.push(data);
    const want = whole.end();
    const nl: number[] = [];
    for (let i = 0; i < data.length; i++) if (data[i] === 10) nl.push(i + 1);
    for (const cut of nl.slice(0, -1)) {
      const a = new LogAnalyzer({ year: 2026 });
      a.push(data.subarray(0, cut));
      const b = LogAnalyzer.restore(a.checkpoint(), { year: 2026 });
      b.push(data.subarray(cut));
      assert.deepEqual(b.end(), want, `cut at byte ${cut}`);
    }
    assert.equal(want.launches.at(-1)?.phase, 'serving');
  });

  it('an engine named from the start reads nothing again', () => {
    const r = analyzeText(text(['$ trtllm-serve meta-llama/Llama-3.1-8B-Instruct --port 8000', ...UVICORN]));
    assert.equal(r.engine, 'trtllm');
  });
});

describe('weak evidence first, stronger evidence for another engine later', () => {
  const lines = [WEAK_SGLANG, ...UVICORN, TRT_LINE];

  it('the lines read under the weak guess are read again when the best engine changes', () => {
    // The bare stamp made SGLang the best guess, under whose rules the access lines were its warm-up request;
    // the TRT-LLM line makes trtllm-serve the best before the detector locks: they are requests served.
    const r = analyzeText(text(lines));
    assert.equal(r.engine, 'trtllm');
    assert.equal(r.launches.at(-1)?.phase, 'serving');
  });

  it('vLLM after a weak SGLang guess: `Application startup complete.` is ready', () => {
    const r = analyzeText(
      text([
        WEAK_SGLANG,
        ...UVICORN.slice(0, 3),
        "WARNING 05-21 10:01:15 [protocol.py:58] The following fields were present in the request but ignored: {'x'}",
      ]),
    );
    assert.equal(r.engine, 'vllm');
    assert.equal(r.launches.at(-1)?.phase, 'ready');
  });

  it('the guess confirmed, nothing changes: SGLang reads its access lines as warm-up', () => {
    const r = analyzeText(
      text([
        WEAK_SGLANG,
        ...UVICORN.slice(0, 4),
        WARMUP_ACCESS,
        '[2025-05-21 09:30:02 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0',
      ]),
    );
    assert.equal(r.engine, 'sglang');
    assert.equal(r.launches.at(-1)?.phase, 'warmup');
  });

  it('a checkpoint at any line, before or after the best engine changes, reads the same', () => {
    const want = sameAtEveryCut(Buffer.from(text([...lines, UVICORN[4]!, WEAK_SGLANG, UVICORN[5]!])));
    assert.equal(want.engine, 'trtllm');
    assert.equal(want.launches.at(-1)?.phase, 'serving');
  });
});

describe('a fragment of shared lines only', () => {
  it("uvicorn started: ready for vLLM, only listening behind trtllm-serve's gate: no phase is claimed", () => {
    const r = analyzeText(text(UVICORN.slice(0, 4)));
    assert.equal(r.engine, null);
    const l = r.launches.at(-1);
    assert.notEqual(l?.phase, 'ready');
    assert.notEqual(l?.phase, 'warmup');
    assert.notEqual(l?.outcome, 'ready');
    assert.equal(l?.confidence, 'low');
  });

  it("a /generate answered after uvicorn started: served for vLLM and trtllm-serve, SGLang's warm-up: warm-up", () => {
    const r = analyzeText(text([...UVICORN.slice(0, 4), WARMUP_ACCESS]));
    assert.equal(r.engine, null);
    assert.equal(r.launches.at(-1)?.phase, 'warmup');
    assert.equal(r.launches.at(-1)?.confidence, 'low');
  });

  it('access lines alone: every engine reads them as requests served', () => {
    const r = analyzeText(text(UVICORN.slice(4)));
    assert.equal(r.engine, null);
    assert.equal(r.launches.at(-1)?.phase, 'serving');
    assert.equal(r.launches.at(-1)?.confidence, 'low');
  });

  it('reads the same from a checkpoint at any line', () => {
    const want = sameAtEveryCut(Buffer.from(text([...UVICORN, ...UVICORN.slice(4)])));
    assert.equal(want.engine, null);
  });
});
