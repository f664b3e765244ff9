import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineDetector } from '../../src/core/detect.js';
import { decodeLine } from '../../src/core/lines/clean.js';
import { type PrefixContext, parseLine } from '../../src/core/lines/prefix.js';

function detect(lines: string[]): EngineDetector {
  const d = new EngineDetector();
  const ctx: PrefixContext = { year: 2026 };
  lines.forEach((t, i) => {
    d.observe(parseLine(decodeLine(Buffer.from(t), 0, Buffer.byteLength(t)), i + 1, 0, ctx));
  });
  return d;
}

describe('evidence-weighted engine detection', () => {
  it('an engine path and milestone outweigh generic python-logging lines', () => {
    const d = detect([
      '2025-05-05 01:02:03,000 INFO Loading configuration',
      '2025-05-05 01:02:04,000 INFO Connecting to store',
      '2025-05-05 01:02:05,000 WARNING Slow disk',
      '  File "/usr/lib/python3/site-packages/sglang/srt/model_executor/model_runner.py", line 5, in load',
      'Load weight begin. avail mem=40.00 GB',
    ]);
    assert.equal(d.best(), 'sglang');
  });

  it('ISO-stamped vLLM lines are vLLM, not TGI', () => {
    const d = detect([
      '2025-03-04T05:06:07.100Z INFO 03-04 05:06:07 [api_server.py:1] args ok',
      '2025-03-04T05:06:07.200Z INFO 03-04 05:06:07 [core.py:2] engine up',
      '2025-03-04T05:06:07.300Z INFO 03-04 05:06:07 [loader.py:3] loading',
    ]);
    assert.equal(d.best(), 'vllm');
    assert.equal(d.scores.tgi, 0);
  });

  it('cut paths and a capture bar vote for their engine', () => {
    assert.equal(detect(['    at srt/managers/scheduler.py line 9']).best(), 'sglang');
    assert.equal(detect(['  File "v1/engine/core.py", line 9, in step']).best(), 'vllm');
    assert.equal(
      detect(['Capturing CUDA graphs (decode, FULL):  40%|████      | 4/10 [00:01<00:01,  9.0it/s]']).best(),
      'vllm',
    );
  });

  it('router and launcher lines vote for SGLang', () => {
    assert.equal(detect(['$ python3 -m sglang.launch_server --model-path m --port 30000']).best(), 'sglang');
    assert.equal(detect(['[Router (Rust)] worker http://10.0.0.1:30000 is healthy']).best(), 'sglang');
  });

  it('a server that embeds a llama.cpp runner (Ollama) is not reported as llama.cpp', () => {
    const d = detect([
      'time=2025-01-01T00:00:00.000Z level=INFO source=routes.go:10 msg="Listening on 127.0.0.1:11434 (version 0.5.0)"',
      'time=2025-01-01T00:00:01.000Z level=INFO source=server.go:20 msg="starting llama server" cmd="/tmp/ollama_llama_server"',
      'llama_model_loader: loaded meta data with 20 key-value pairs',
      'llama_model_loader: - kv   0: general.architecture str = llama',
    ]);
    assert.equal(d.best(), 'llamacpp');
    assert.equal(d.reported(), null);
  });
});
