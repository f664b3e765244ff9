import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseBenchOutput } from '../../../src/core/campaign/bench/index.js';
import { evaluateTargets, parseTarget, TargetParseError } from '../../../src/core/campaign/targets.js';
import type { TargetRecord } from '../../../src/store/types.js';
import { SHARED } from '../../helpers.js';
import { benchRecord, scenarioRecords } from '../../ledger-fixtures.js';

const target = (expr: string, model: string | null = null, id = 1): TargetRecord => ({
  id,
  model,
  ...parseTarget(expr),
});

describe('parseTarget', () => {
  it('reads the four example targets, with or without spaces and units', () => {
    assert.deepEqual(parseTarget('output_tok_s >= 1000'), {
      metric: 'output_tok_s',
      op: '>=',
      value: 1000,
      expr: 'output_tok_s >= 1000',
    });
    assert.equal(parseTarget('single_stream_tok_s>=100').value, 100);
    assert.deepEqual(parseTarget('ttft_p99_ms <= 500ms').op, '<=');
    assert.equal(parseTarget('load_s<=6e2 s').expr, 'load_s <= 600');
    assert.equal(parseTarget('peak_tok_s = 2000').op, '==');
  });

  it('says what is wrong, listing the known metrics for an unknown one', () => {
    const bad = (expr: string, re: RegExp) =>
      assert.throws(
        () => parseTarget(expr),
        (e: unknown) => e instanceof TargetParseError && re.test(e.message),
      );
    bad('throughput >= 1000', /unknown metric throughput \(known: output_tok_s, total_tok_s, .*load_s\)/);
    bad('output_tok_s 1000', /expected METRIC OP NUMBER/);
    bad('output_tok_s >= lots', /lots is not a number/);
    bad('ttft_p99_ms <= 5s', /ttft_p99_ms is in ms, not s/);
    bad('', /expected METRIC OP NUMBER/);
    // an operator with nothing after it is not read as '<' followed by the value '='
    bad('load_s <=', /expected METRIC OP NUMBER/);
    bad('load_s >= =5', /expected METRIC OP NUMBER/);
  });
});

describe('evaluateTargets', () => {
  const [cutlass] = scenarioRecords('glm5-cutlass-bench-then-shutdown.log');
  const [oom] = scenarioRecords('glm5-trtllm-oom-in-cuda-graph.log');
  const jsonl = parseBenchOutput(
    fs.readFileSync(path.join(SHARED, 'bench', 'sglang-bench-serving.jsonl'), 'utf8'),
    'r',
  );
  const benches = jsonl.map((p) => benchRecord(p, cutlass!.id));

  it('log metrics come from the record, bench metrics from the best run, single stream from concurrency 1', () => {
    const res = evaluateTargets(
      [
        target('peak_tok_s >= 1900'),
        target('load_s <= 60'),
        target('output_tok_s >= 1000'),
        target('ttft_p99_ms <= 500'),
        target('single_stream_tok_s >= 100'),
        target('itl_median_ms < 5'),
      ],
      cutlass!,
      benches,
    );
    const by = Object.fromEntries(res.map((r) => [r.target.expr, r]));
    assert.equal(by['peak_tok_s >= 1900']!.pass, true);
    assert.equal(by['peak_tok_s >= 1900']!.from, 'log');
    assert.equal(by['load_s <= 60']!.actual, cutlass!.loadSeconds);
    // best run: concurrency 1024, 1865.85 tok/s, and its own TTFT P99
    assert.equal(by['output_tok_s >= 1000']!.actual, 1865.85);
    assert.match(by['output_tok_s >= 1000']!.from!, /concurrency 1024/);
    assert.equal(by['ttft_p99_ms <= 500']!.actual, 14470.02);
    assert.equal(by['ttft_p99_ms <= 500']!.pass, false);
    assert.equal(by['single_stream_tok_s >= 100']!.actual, 100.68);
    assert.equal(by['single_stream_tok_s >= 100']!.pass, true);
    assert.equal(by['itl_median_ms < 5']!.pass, false);
  });

  it('no data is pass null, not a failure; another model’s targets do not apply', () => {
    const res = evaluateTargets(
      [target('output_tok_s >= 1000'), target('load_s <= 600'), target('peak_tok_s >= 1', 'other/model', 2)],
      oom!,
      [],
    );
    assert.equal(res.length, 2);
    assert.deepEqual(
      res.map((r) => [r.target.expr, r.actual, r.pass]),
      [
        ['output_tok_s >= 1000', null, null],
        ['load_s <= 600', null, null],
      ],
    );
    const mine = evaluateTargets([target('peak_tok_s >= 1', 'lukealonso/GLM-5-NVFP4')], cutlass!, []);
    assert.equal(mine[0]!.pass, true);
  });

  it('without a concurrency-1 run there is no single-stream figure', () => {
    const res = evaluateTargets([target('single_stream_tok_s >= 100')], cutlass!, benches.slice(1));
    assert.equal(res[0]!.actual, null);
    assert.equal(res[0]!.pass, null);
  });
});
