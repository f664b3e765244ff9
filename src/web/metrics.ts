/**
 * `/metrics`: the watched targets in Prometheus's text exposition format (version 0.0.4). Pure: the server
 * passes the targets' current state in, gets the page out. Every series carries `target` (the name in
 * firedup.toml or the log's file name) and, where known, `host`, `model` and `engine`. A number nobody knows
 * yet (no progress bar, no throughput) is left out rather than written as 0: an absent series does not
 * fire alerts or bend graphs the way a made-up zero would.
 */

import { type EngineId, PHASES, type Phase } from '../core/base/types.js';
import { engineModule } from '../core/engines/index.js';
import type { LaunchReport } from '../core/reading/report.js';
import { LIVE_STATES, type Verdict } from '../core/verdict/verdict.js';
import type { GpuSummary } from './api-types.js';

export interface MetricsTarget {
  name: string;
  /** `localhost` for a local log, else the ssh host as written. */
  host: string;
  /** The log is readable and the probes run. */
  up: boolean;
  verdict: Verdict | null;
  launch: LaunchReport | null;
  gpus: GpuSummary[] | null;
  /** A multi-node target's nodes: the per-node series, labelled `node` (node0, node1, … as configured). */
  nodes?: MetricsNode[];
}

export interface MetricsNode {
  node: string;
  host: string;
  head: boolean;
  state: string;
  progress: { ratio: number } | null;
  culprit: boolean;
  gpus: GpuSummary[] | null;
}

export { LIVE_STATES };

type Labels = Record<string, string>;
interface Sample {
  labels: Labels;
  value: number;
}
interface Family {
  name: string;
  help: string;
  samples: Sample[];
}

/** Label values escape backslash, double quote and newline (the format's only escapes). */
export function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(v);
}

function formatLabels(l: Labels): string {
  const parts = Object.entries(l).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

const PHASE_SET = new Set<string>(PHASES);

/**
 * The phases an engine's log can show, in launch order: its signatures' phases, plus those every launch has
 * (a load bar means loading_weights; ready and serving). Unknown engine: all of them.
 */
export function enginePhases(engine: EngineId | null, current: Phase | null = null): Phase[] {
  if (!engine) return [...PHASES];
  const seen = new Set<string>(['args', 'loading_weights', 'ready', 'serving']);
  for (const s of engineModule(engine).signatures) if (s.phase) seen.add(s.phase);
  if (current) seen.add(current);
  return PHASES.filter((p) => seen.has(p) && PHASE_SET.has(p));
}

function baseLabels(t: MetricsTarget): Labels {
  const l: Labels = { target: t.name, host: t.host };
  const model = t.launch?.model;
  const engine = t.launch?.engine ?? t.verdict?.engine ?? null;
  if (model) l.model = model;
  if (engine) l.engine = engine;
  return l;
}

export function renderMetrics(targets: readonly MetricsTarget[]): string {
  const fams = new Map<string, Family>();
  const add = (name: string, help: string, labels: Labels, value: number | null | undefined): void => {
    let f = fams.get(name);
    if (!f) {
      f = { name, help, samples: [] };
      fams.set(name, f);
    }
    if (value === null || value === undefined || !Number.isFinite(value)) return;
    f.samples.push({ labels, value });
  };
  // Families are declared in this order even with no targets, so HELP/TYPE always describe the page.
  const HELP = {
    up: 'Whether the target is watched: its log is readable and the probes run (1) or not (0).',
    ready: 'Whether the server is ready: verdict ready, serving or idle (1) or not (0).',
    state: 'The live verdict: 1 for the current state, 0 for the others.',
    phase: "The furthest phase the latest launch's log shows: 1 for it, 0 for the engine's other phases.",
    progress: 'Weight loading progress of the latest launch, 0 to 1 (shards done / total).',
    eta: "Seconds left of the current progress bar (the bar's own estimate).",
    stalled: 'Whether the launch is stalled: no progress for longer than its phase allows (1) or not (0).',
    crashed: 'Whether the latest launch crashed (1) or not (0).',
    tput: 'Generation throughput of the latest launch, from its last serving sample.',
    quiet: 'Seconds since the latest launch last showed progress, on the watcher clock.',
    budget: 'Seconds of silence the current phase gets before it is called stalled.',
    duration: 'Seconds the latest launch spent in each phase so far (from the log timestamps).',
    launches: 'Launches in the watched log.',
    gpuUsed: 'GPU memory in use, bytes.',
    gpuTotal: 'GPU memory, bytes.',
    gpuUtil: 'GPU utilisation, 0 to 1.',
    nodeState:
      "A multi-node target's node: 1 for the state its own session gives it, 0 for the others (host is the node's).",
    nodeHead: "Whether the node is the launch's head, the one that serves (1) or a worker (0).",
    nodeProgress: "The node's weight loading progress, 0 to 1.",
    nodeCulprit: 'Whether this node died first or holds the other nodes back (1) or not (0).',
  };
  for (const [name, help] of [
    ['firedup_up', HELP.up],
    ['firedup_ready', HELP.ready],
    ['firedup_state', HELP.state],
    ['firedup_phase', HELP.phase],
    ['firedup_load_progress_ratio', HELP.progress],
    ['firedup_eta_seconds', HELP.eta],
    ['firedup_stalled', HELP.stalled],
    ['firedup_crashed', HELP.crashed],
    ['firedup_gen_throughput_tokens_per_second', HELP.tput],
    ['firedup_quiet_seconds', HELP.quiet],
    ['firedup_silence_budget_seconds', HELP.budget],
    ['firedup_phase_duration_seconds', HELP.duration],
    ['firedup_launches', HELP.launches],
    ['firedup_gpu_memory_used_bytes', HELP.gpuUsed],
    ['firedup_gpu_memory_total_bytes', HELP.gpuTotal],
    ['firedup_gpu_utilization_ratio', HELP.gpuUtil],
    ['firedup_node_state', HELP.nodeState],
    ['firedup_node_head', HELP.nodeHead],
    ['firedup_node_load_progress_ratio', HELP.nodeProgress],
    ['firedup_node_culprit', HELP.nodeCulprit],
  ] as const)
    add(name, help, {}, null);

  for (const t of targets) {
    const base = baseLabels(t);
    const v = t.verdict;
    const l = t.launch;
    const put = (name: string, value: number | null | undefined, extra: Labels = {}) =>
      add(name, fams.get(name)!.help, { ...base, ...extra }, value);
    put('firedup_up', t.up ? 1 : 0);
    if (v) {
      put('firedup_ready', v.state === 'ready' || v.state === 'serving' || v.state === 'idle' ? 1 : 0);
      for (const s of LIVE_STATES) put('firedup_state', s === v.state ? 1 : 0, { state: s });
      put('firedup_stalled', v.state === 'stalled' ? 1 : 0);
      put('firedup_crashed', v.state === 'crashed' ? 1 : 0);
      put('firedup_quiet_seconds', v.quietFor);
      put('firedup_silence_budget_seconds', v.budget);
      put('firedup_launches', v.launches);
    }
    if (l) {
      const phase = l.phase;
      if (phase) {
        for (const p of enginePhases(l.engine ?? v?.engine ?? null, phase))
          put('firedup_phase', p === phase ? 1 : 0, { phase: p });
      }
      if (l.progress) put('firedup_load_progress_ratio', l.progress.ratio);
      // The ETA only means something while the bar is running.
      const bar = phase === 'cuda_graph' && l.graphProgress ? l.graphProgress : l.progress;
      const running = l.outcome === 'in_progress' && v?.state !== 'stalled' && v?.final !== true;
      if (bar && running && bar.done < bar.total) put('firedup_eta_seconds', bar.eta);
      put('firedup_gen_throughput_tokens_per_second', l.throughput?.last);
      const durations = new Map<string, number>();
      for (const p of l.phases)
        if (p.duration !== null) durations.set(p.phase, (durations.get(p.phase) ?? 0) + p.duration);
      for (const [p, d] of durations)
        put('firedup_phase_duration_seconds', Math.round(d * 100) / 100, { phase: p });
    }
    // A multi-node target's GPUs are every node's, told apart by `node` (and the node's host).
    const gpuSets = t.nodes
      ? t.nodes.map((n) => ({ labels: { host: n.host, node: n.node }, gpus: n.gpus }))
      : [{ labels: {}, gpus: t.gpus }];
    for (const set of gpuSets)
      for (const g of set.gpus ?? []) {
        const gl = { ...set.labels, gpu: String(g.index) };
        put('firedup_gpu_memory_used_bytes', g.memUsedBytes, gl);
        put('firedup_gpu_memory_total_bytes', g.memTotalBytes, gl);
        put('firedup_gpu_utilization_ratio', g.util, gl);
      }
    for (const n of t.nodes ?? []) {
      const nl = { host: n.host, node: n.node };
      for (const s of [...LIVE_STATES, 'unreachable'])
        put('firedup_node_state', s === n.state ? 1 : 0, { ...nl, state: s });
      put('firedup_node_head', n.head ? 1 : 0, nl);
      put('firedup_node_load_progress_ratio', n.progress?.ratio, nl);
      put('firedup_node_culprit', n.culprit ? 1 : 0, nl);
    }
  }

  let out = '';
  for (const f of fams.values()) {
    out += `# HELP ${f.name} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${f.name} gauge\n`;
    for (const s of f.samples) out += `${f.name}${formatLabels(s.labels)} ${formatValue(s.value)}\n`;
  }
  return out;
}
