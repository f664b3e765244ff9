import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BenchParseError, parseBenchOutput } from '../../../../src/core/campaign/bench/index.js';
import { SHARED } from '../../../helpers.js';

const fixture = (name: string) => fs.readFileSync(path.join(SHARED, 'bench', name), 'utf8');

/** No field may be NaN or Infinity anywhere: results are stored as JSON. */
function assertFinite(v: unknown, where = 'result'): void {
  if (typeof v === 'number') assert.ok(Number.isFinite(v), `${where} is ${v}`);
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) assertFinite(x, `${where}.${k}`);
}

describe('sglang.bench_serving', () => {
  it('reads both printed blocks with their Namespace arguments', () => {
    const runs = parseBenchOutput(fixture('sglang-bench-serving.txt'), 'b.txt');
    assert.equal(runs.length, 2);
    const [a, b] = runs;
    assert.equal(a!.tool, 'sglang');
    assert.equal(a!.backend, 'sglang');
    assert.equal(a!.maxConcurrency, 1);
    assert.equal(a!.outputTokS, 95.52);
    assert.equal(a!.completed, 64);
    assert.equal(a!.durationS, 171.52);
    assert.equal(a!.requestRate, null, 'inf is no number');
    assert.equal(a!.inputTokS, 382.09);
    assert.deepEqual(a!.ttft, { mean: 101.37, median: 98.12, p99: 188.4 });
    assert.deepEqual(a!.itl, { mean: 10.05, median: 9.98, p99: 12.63 });
    assert.deepEqual(a!.e2e, { mean: 2664.8, median: 2655.1, p99: 2790.3 });
    assert.equal(a!.host, '0.0.0.0');
    assert.equal(a!.port, 8000);
    assert.equal(a!.model, null, 'model=None in the arguments');
    assert.equal(a!.finishedAt, null, 'the printed block has no date');
    assert.equal(a!.source, 'b.txt:10');
    assert.match(a!.runText, /^=+ Serving Benchmark Result =+\n/);
    assert.match(a!.runText, /\n=+$/);
    assert.equal(b!.maxConcurrency, 1024);
    assert.equal(b!.outputTokS, 2457.87);
    assert.equal(b!.tpot.p99, 402.17);
    assert.notEqual(a!.runText, b!.runText);
    for (const r of runs) assertFinite(r);
  });

  it('reads JSONL lines: Infinity and NaN become null, server_info gives model and port', () => {
    const runs = parseBenchOutput(fixture('sglang-bench-serving.jsonl'), 'r.jsonl');
    assert.equal(runs.length, 3);
    const [one, nan, big] = runs;
    assert.equal(one!.tool, 'sglang');
    assert.equal(one!.model, 'lukealonso/GLM-5-NVFP4');
    assert.equal(one!.port, 8000);
    assert.equal(one!.host, null, "the server's bind address is not a host name");
    assert.equal(one!.requestRate, null);
    assert.equal(one!.maxConcurrency, 1);
    assert.equal(one!.outputTokS, 100.68);
    assert.equal(one!.source, 'r.jsonl:1');
    assert.deepEqual(nan!.itl, { mean: null, median: null, p99: null });
    assert.equal(nan!.maxConcurrency, 4);
    assert.equal(big!.outputTokS, 1865.85);
    assert.equal(big!.ttft.p99, 14470.02);
    assert.equal(big!.e2e.median, 127340.5);
    for (const r of runs) assertFinite(r);
    assert.equal(new Set(runs.map((r) => r.runText)).size, 3);
  });
});

describe('vllm bench serve', () => {
  it('reads the printed block and a cut-off older one', () => {
    const runs = parseBenchOutput(fixture('vllm-bench-serve.txt'), 'v.txt');
    assert.equal(runs.length, 2);
    const [a, b] = runs;
    assert.equal(a!.tool, 'vllm');
    assert.equal(a!.model, 'Qwen/Qwen3-30B-A3B');
    assert.equal(a!.backend, 'vllm');
    assert.equal(a!.host, '127.0.0.1');
    assert.equal(a!.port, 8000);
    assert.equal(a!.maxConcurrency, 64);
    assert.equal(a!.outputTokS, 3578.43);
    assert.equal(a!.totalTokS, 17892.09);
    assert.equal(a!.inputTokS, 14313.67, 'total input tokens / duration');
    assert.deepEqual(a!.tpot, { mean: 16.02, median: 15.88, p99: 21.4 });
    assert.deepEqual(a!.e2e, { mean: null, median: null, p99: null });
    // the older run: capital-T total row, base_url wins over host/port, no TTFT rows before the cut
    assert.equal(b!.totalTokS, 13326.39);
    assert.equal(b!.host, '10.0.0.5');
    assert.equal(b!.maxConcurrency, null);
    assert.deepEqual(b!.ttft, { mean: null, median: null, p99: null });
    for (const r of runs) assertFinite(r);
  });

  it('reads --save-result JSON, with its date on the log clock', () => {
    const text = fixture('vllm-save-result.json');
    const [r, ...more] = parseBenchOutput(text, 'res.json');
    assert.equal(more.length, 0);
    assert.equal(r!.tool, 'vllm');
    assert.equal(r!.model, 'lukealonso/GLM-5-NVFP4');
    assert.equal(r!.finishedAt, Date.UTC(2026, 1, 19, 13, 5, 52) / 1000);
    assert.equal(r!.requestRate, null, '"inf"');
    assert.equal(r!.maxConcurrency, 64);
    assert.equal(r!.outputTokS, 610.54);
    assert.equal(r!.totalTokS, 3052.71);
    assert.deepEqual(r!.ttft, { mean: 488.21, median: 460.07, p99: 912.66 });
    assert.deepEqual(r!.e2e, { mean: 26453.2, median: 26410.8, p99: 27301.4 });
    assert.equal(r!.source, 'res.json');
    assert.equal(r!.runText, text.trim());
    assertFinite(r);
  });

  it('reads the same JSON pretty-printed', () => {
    const pretty = JSON.stringify(JSON.parse(fixture('vllm-save-result.json')), null, 2);
    const [r] = parseBenchOutput(pretty, 'p.json');
    assert.equal(r!.outputTokS, 610.54);
  });
});

describe('what is not a benchmark', () => {
  const fails = (text: string, re: RegExp) =>
    assert.throws(
      () => parseBenchOutput(text, 'x.log'),
      (e: unknown) => e instanceof BenchParseError && re.test(e.message) && e.message.startsWith('x.log: '),
    );

  it('an empty file, a server log, foreign JSON, broken JSONL each get a reason naming the file', () => {
    fails('', /empty file/);
    fails(
      fs.readFileSync(path.join(SHARED, 'scenarios', 'glm5-silent-after-load-weight-end.log'), 'utf8'),
      /no "Serving Benchmark Result" block/,
    );
    fails('{"model": "x", "tp": 8}\n', /no output_throughput/);
    fails('{"output_throughput": 12, \n', /line 1 looks like JSON but does not parse/);
  });

  it('a header with nothing under it is no run', () => {
    fails('============ Serving Benchmark Result ============\n', /no "Serving Benchmark Result"/);
  });

  it('several blocks mixed with JSONL come back in file order', () => {
    const jsonl = fixture('sglang-bench-serving.jsonl').split('\n')[0]!;
    const text = `${fixture('vllm-bench-serve.txt')}${jsonl}\n${fixture('sglang-bench-serving.txt')}`;
    const runs = parseBenchOutput(text, 'mix.log');
    assert.deepEqual(
      runs.map((r) => [r.tool, r.outputTokS]),
      [
        ['vllm', 3578.43],
        ['vllm', 2665.28],
        ['sglang', 100.68],
        ['sglang', 95.52],
        ['sglang', 2457.87],
      ],
    );
  });
});
