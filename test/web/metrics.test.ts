import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { LaunchReport } from '../../src/core/reading/report.js';
import { liveVerdict } from '../../src/core/verdict/verdict.js';
import { enginePhases, escapeLabel, type MetricsTarget, renderMetrics } from '../../src/web/metrics.js';
import { analyzeBytes, ROOT, readShared } from '../helpers.js';

interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * A checker for the text exposition format (0.0.4), strict where Prometheus is: HELP and TYPE before a
 * family's samples, one block per family, valid names, label values with only \\, \" and \n escapes,
 * float values, no series twice.
 */
function parseExposition(text: string): {
  series: Series[];
  types: Map<string, string>;
  help: Map<string, string>;
} {
  assert.ok(text.endsWith('\n'), 'the page ends with a newline');
  const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const series: Series[] = [];
  const seen = new Set<string>();
  const closed = new Set<string>();
  let current: string | null = null;
  const enter = (name: string, where: string) => {
    if (current !== name) {
      assert.ok(!closed.has(name), `${where}: family ${name} appears in two blocks`);
      if (current) closed.add(current);
      current = name;
    }
  };
  text
    .slice(0, -1)
    .split('\n')
    .forEach((line, i) => {
      const where = `line ${i + 1}: ${line}`;
      if (line.startsWith('#')) {
        const m = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
        if (!m) return; // a plain comment
        assert.match(m[2]!, NAME, where);
        enter(m[2]!, where);
        if (m[1] === 'TYPE') {
          assert.ok(!types.has(m[2]!), `${where}: TYPE twice`);
          assert.ok(['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(m[3]!), where);
          types.set(m[2]!, m[3]!);
        } else {
          assert.ok(!/\\[^\\n]/.test(m[3]!), `${where}: HELP escapes only \\\\ and \\n`);
          help.set(m[2]!, m[3]!);
        }
        return;
      }
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$/.exec(line);
      assert.ok(m, `${where}: not a sample line`);
      const name = m[1]!;
      enter(name, where);
      assert.ok(types.has(name), `${where}: sample before its TYPE`);
      const labels: Record<string, string> = {};
      let rest = m[3] ?? '';
      while (rest !== '') {
        const l = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/.exec(rest);
        assert.ok(l, `${where}: bad label syntax at ${rest}`);
        assert.ok(!(l[1]! in labels), `${where}: label ${l[1]} twice`);
        labels[l[1]!] = l[2]!.replace(/\\(["\\n])/g, (_, c) => (c === 'n' ? '\n' : c));
        rest = rest.slice(l[0].length);
      }
      const raw = m[4]!;
      const value =
        raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : raw === 'NaN' ? NaN : Number(raw);
      assert.ok(
        /^(NaN|[+-]Inf|[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)$/.test(raw),
        `${where}: bad value ${raw}`,
      );
      const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
      assert.ok(!seen.has(key), `${where}: series twice`);
      seen.add(key);
      series.push({ name, labels, value });
    });
  return { series, types, help };
}

function get(series: Series[], name: string, labels: Record<string, string> = {}): Series[] {
  return series.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

function stuckTarget(name = 'glm5'): MetricsTarget {
  const rep = analyzeBytes(readShared(path.join('scenarios', 'glm5-relaunch-stuck-at-48pct.log')));
  const launch = rep.launches.at(-1)!;
  // The log stopped moving 120 s ago on the watcher's clock: past loading's budget.
  const verdict = liveVerdict({ report: rep, obs: {}, now: 1000, progressAt: 880, logExists: true });
  assert.equal(verdict.state, 'stalled');
  return {
    name,
    host: 'gpu-a',
    up: true,
    verdict,
    launch,
    gpus: [
      { index: 0, memUsedBytes: 80 * 2 ** 30, memTotalBytes: 141 * 2 ** 30, util: 0 },
      { index: 1, memUsedBytes: 79.5 * 2 ** 30, memTotalBytes: 141 * 2 ** 30, util: 0.5 },
    ],
  };
}

describe('renderMetrics', () => {
  it('a stalled loading launch: the page parses, stalled 1, phase loading_weights one-hot over the engine phases', () => {
    const t = stuckTarget();
    const { series, types, help } = parseExposition(renderMetrics([t]));
    for (const [name, type] of types) {
      assert.equal(type, 'gauge', name);
      assert.ok(help.get(name)!.length > 10, `${name} has a HELP text`);
    }
    const base = { target: 'glm5', host: 'gpu-a', model: 'lukealonso/GLM-5-NVFP4', engine: 'sglang' };
    assert.deepEqual(get(series, 'firedup_up')[0], { name: 'firedup_up', labels: base, value: 1 });
    assert.equal(get(series, 'firedup_stalled', base)[0]!.value, 1);
    assert.equal(get(series, 'firedup_crashed', base)[0]!.value, 0);
    assert.equal(get(series, 'firedup_ready', base)[0]!.value, 0);
    const phases = get(series, 'firedup_phase');
    assert.deepEqual(
      phases.map((s) => s.labels.phase),
      enginePhases('sglang'),
    );
    assert.deepEqual(
      phases.filter((s) => s.value === 1).map((s) => s.labels.phase),
      ['loading_weights'],
    );
    const states = get(series, 'firedup_state');
    assert.deepEqual(
      states.filter((s) => s.value === 1).map((s) => s.labels.state),
      ['stalled'],
    );
    assert.equal(get(series, 'firedup_load_progress_ratio')[0]!.value, t.launch!.progress!.ratio);
    assert.equal(get(series, 'firedup_eta_seconds').length, 0, 'no ETA for a bar that stopped');
    assert.equal(get(series, 'firedup_launches')[0]!.value, 2);
    assert.equal(get(series, 'firedup_gpu_memory_used_bytes', { gpu: '1' })[0]!.value, 79.5 * 2 ** 30);
    assert.equal(get(series, 'firedup_gpu_utilization_ratio', { gpu: '1' })[0]!.value, 0.5);
    const durations = get(series, 'firedup_phase_duration_seconds');
    assert.deepEqual(
      durations.map((s) => s.labels.phase),
      t.launch!.phases.map((p) => p.phase),
    );
    assert.equal(get(series, 'firedup_phase_duration_seconds', { phase: 'dist_init' })[0]!.value, 5);
    // Not serving yet: no throughput series rather than a made-up 0.
    assert.equal(get(series, 'firedup_gen_throughput_tokens_per_second').length, 0);
  });

  it('a loading launch that moves has an ETA; a serving one its throughput and ready 1', () => {
    const rep = analyzeBytes(readShared(path.join('scenarios', 'glm5-relaunch-stuck-at-48pct.log')));
    const loading = liveVerdict({ report: rep, obs: {}, now: 1000, progressAt: 999, logExists: true });
    assert.equal(loading.state, 'loading');
    const a = parseExposition(
      renderMetrics([
        { name: 'a', host: 'localhost', up: true, verdict: loading, launch: rep.launches[1]!, gpus: null },
      ]),
    );
    assert.equal(get(a.series, 'firedup_eta_seconds')[0]!.value, rep.launches[1]!.progress!.eta);
    const serving = analyzeBytes(fs.readFileSync(path.join(ROOT, 'examples', 'glm5-serving.log')));
    const v = liveVerdict({ report: serving, obs: {}, now: 1000, progressAt: 999, logExists: true });
    const b = parseExposition(
      renderMetrics([
        { name: 'b', host: 'localhost', up: true, verdict: v, launch: serving.launches[0]!, gpus: null },
      ]),
    );
    assert.equal(get(b.series, 'firedup_ready')[0]!.value, 1);
    assert.equal(
      get(b.series, 'firedup_gen_throughput_tokens_per_second')[0]!.value,
      serving.launches[0]!.throughput!.last,
    );
    assert.deepEqual(
      get(b.series, 'firedup_phase')
        .filter((s) => s.value === 1)
        .map((s) => s.labels.phase),
      ['serving'],
    );
  });

  it('escapes label values: quotes, backslashes and newlines in a target name and a model', () => {
    const t = stuckTarget('we"ird\\name\nx');
    t.launch = { ...t.launch!, model: '/models/"GLM"\\5' } as LaunchReport;
    const text = renderMetrics([t]);
    assert.ok(
      text.includes('target="we\\"ird\\\\name\\nx"'),
      text.split('\n').find((l) => l.startsWith('firedup_up')),
    );
    const { series } = parseExposition(text);
    assert.equal(get(series, 'firedup_up')[0]!.labels.target, 'we"ird\\name\nx');
    assert.equal(get(series, 'firedup_up')[0]!.labels.model, '/models/"GLM"\\5');
    assert.equal(escapeLabel('a"b\\c\nd'), 'a\\"b\\\\c\\nd');
  });

  it('two targets: each family stays one block; a target whose log is unreadable is up 0 with no verdict series', () => {
    const down: MetricsTarget = {
      name: 'gone',
      host: 'localhost',
      up: false,
      verdict: null,
      launch: null,
      gpus: null,
    };
    const { series } = parseExposition(renderMetrics([stuckTarget('a'), down, stuckTarget('b')]));
    assert.deepEqual(
      get(series, 'firedup_up').map((s) => [s.labels.target, s.value]),
      [
        ['a', 1],
        ['gone', 0],
        ['b', 1],
      ],
    );
    assert.equal(get(series, 'firedup_stalled', { target: 'gone' }).length, 0);
    assert.equal(get(series, 'firedup_stalled').length, 2);
  });

  it("a multi-node target: the launch's series once, each node's state, head, progress and culprit by `node`", () => {
    const gpu = (i: number) => ({ index: i, memUsedBytes: 1e9, memTotalBytes: 8e10, util: 0.5 });
    const t: MetricsTarget = {
      ...stuckTarget('two'),
      nodes: [
        {
          node: 'node0',
          host: 'gpu-a',
          head: true,
          state: 'stalled',
          progress: { ratio: 0.48 },
          culprit: false,
          gpus: [gpu(0)],
        },
        {
          node: 'node1',
          host: 'gpu-b',
          head: false,
          state: 'loading',
          progress: null,
          culprit: true,
          gpus: [gpu(0)],
        },
      ],
    };
    const { series } = parseExposition(renderMetrics([t]));
    assert.equal(get(series, 'firedup_up').length, 1);
    assert.deepEqual(
      get(series, 'firedup_node_state')
        .filter((s) => s.value === 1)
        .map((s) => [s.labels.node, s.labels.host, s.labels.state]),
      [
        ['node0', 'gpu-a', 'stalled'],
        ['node1', 'gpu-b', 'loading'],
      ],
    );
    assert.deepEqual(
      get(series, 'firedup_node_culprit').map((s) => [s.labels.node, s.value]),
      [
        ['node0', 0],
        ['node1', 1],
      ],
    );
    assert.deepEqual(
      get(series, 'firedup_node_head').map((s) => s.value),
      [1, 0],
    );
    // Unknown progress is absent, not 0.
    assert.deepEqual(
      get(series, 'firedup_node_load_progress_ratio').map((s) => [s.labels.node, s.value]),
      [['node0', 0.48]],
    );
    // Every node's GPUs, told apart by node (the same index on two hosts is two series).
    assert.deepEqual(
      get(series, 'firedup_gpu_memory_used_bytes').map((s) => [s.labels.node, s.labels.host, s.labels.gpu]),
      [
        ['node0', 'gpu-a', '0'],
        ['node1', 'gpu-b', '0'],
      ],
    );
  });

  it('no targets: HELP and TYPE only, still a valid page', () => {
    const { series, types } = parseExposition(renderMetrics([]));
    assert.equal(series.length, 0);
    assert.ok(types.has('firedup_stalled') && types.has('firedup_phase'));
  });

  it('engine phase lists follow the engines: TGI has no compile, llama-server no compile; unknown engine gets all', () => {
    // TGI captures CUDA graphs in its warmup (`Cuda Graphs are enabled for sizes …`, flash_causal_lm.py), compiles nothing
    assert.ok(!enginePhases('tgi').includes('compile'));
    assert.ok(enginePhases('tgi').includes('cuda_graph'));
    assert.ok(enginePhases('tgi').includes('loading_weights'));
    assert.ok(!enginePhases('llamacpp').includes('compile'));
    // vLLM's kernel warmup (model_executor/warmup/kernel_warmup.py: FlashInfer autotune) is a rule of its own now
    assert.ok(enginePhases('vllm').includes('autotune'));
    assert.ok(enginePhases('tgi', 'compile').includes('compile'), 'the current phase is always listed');
    assert.equal(enginePhases(null).length, 11);
  });
});
