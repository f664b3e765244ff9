/** A log's report from what the analyzer read (its JSON shapes, `runs --json`, `status --json`: report-types.ts). */

import type {
  AnalysisReport,
  FailureReport,
  LaunchReport,
  PhaseReport,
  ProgressReport,
  ThroughputReport,
} from '../base/report-types.js';
import type { EngineId, Evidence } from '../base/types.js';
import { redactText } from '../config/redact.js';
import { engineModule } from '../engines/index.js';
import { isRayMultiNode, rayLaunch } from '../multinode/ray.js';
import { launchConfidence, WEAK_ENGINE_SCORE } from './confidence.js';
import type { EngineDetector } from './detect.js';
import type { LaunchBuilder } from './launch.js';

export type {
  AnalysisReport,
  FailureReport,
  LaunchReport,
  PhaseReport,
  ProgressReport,
  ThroughputReport,
} from '../base/report-types.js';

// The last stamp written, and the date part of the last day: a launch's phases, and the launches of a busy log,
// share many (toISOString for each took a tenth of reading a log of 100k launches).
let isoMs = Number.NaN;
let isoText = '';
let isoDay = Number.NaN;
let isoDayText = '';
const DAY_MS = 86400000;
/** 10000-01-01: from there toISOString writes the year with a sign and six digits. */
const ISO_MAX_MS = 253402300800000;
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * toISOString's date part (`YYYY-MM-DDT`) of a day since the epoch, from 1970 to 9999: civil-from-days (Howard
 * Hinnant's algorithm), exact like Date's; the first toISOString of a process costs V8 a fifth of a millisecond.
 */
function isoDate(day: number): string {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${y}-${two(m)}-${two(d)}T`;
}

/** A stamp as the report writes it: toISOString's text without `.000` (null: no time, or a relative one). */
export function iso(ts: number | null, relative: boolean): string | null {
  if (ts === null || relative || ts < 86400 * 2) return null;
  const ms = Math.round(ts * 1000);
  if (ms === isoMs) return isoText;
  if (!(ms < ISO_MAX_MS)) return new Date(ms).toISOString().replace('.000Z', 'Z');
  const day = Math.floor(ms / DAY_MS);
  if (day !== isoDay) {
    isoDayText = isoDate(day);
    isoDay = day;
  }
  let r = ms - day * DAY_MS;
  const frac = r % 1000;
  r = (r - frac) / 1000;
  const sec = r % 60;
  r = (r - sec) / 60;
  const min = r % 60;
  const hour = (r - min) / 60;
  const f = frac === 0 ? '' : frac < 10 ? `.00${frac}` : frac < 100 ? `.0${frac}` : `.${frac}`;
  isoText = `${isoDayText}${two(hour)}:${two(min)}:${two(sec)}${f}Z`;
  isoMs = ms;
  return isoText;
}

const r2 = (x: number | null): number | null => (x === null ? null : Math.round(x * 100) / 100);

const SUMMARY_KEYS: Record<string, string[]> = {
  model: ['model_path', 'model', 'model_tag', 'model_id'],
  served_model_name: ['served_model_name'],
  tp: ['tp_size', 'tensor_parallel_size', 'num_shard', 'tp'],
  pp: ['pp_size', 'pipeline_parallel_size'],
  dp: ['dp_size', 'data_parallel_size'],
  ep: ['ep_size', 'expert_parallel_size', 'enable_expert_parallel'],
  nnodes: ['nnodes'],
  dtype: ['dtype'],
  quantization: ['quantization', 'quantize'],
  kv_cache_dtype: ['kv_cache_dtype'],
  mem_fraction_static: ['mem_fraction_static'],
  gpu_memory_utilization: ['gpu_memory_utilization'],
  max_running_requests: ['max_running_requests', 'max_num_seqs'],
  max_model_len: ['context_length', 'max_model_len', 'max_seq_len'],
  chunked_prefill_size: ['chunked_prefill_size', 'max_num_batched_tokens'],
  cuda_graph_max_bs: ['cuda_graph_max_bs'],
  disable_cuda_graph: ['disable_cuda_graph', 'enforce_eager'],
  attention_backend: ['attention_backend'],
  moe_runner_backend: ['moe_runner_backend'],
  enable_dp_attention: ['enable_dp_attention'],
  speculative_algorithm: ['speculative_algorithm', 'speculative_config'],
  host: ['host'],
  port: ['port'],
};

/**
 * The config keys a summary name stands for (`tp` → tp_size, tensor_parallel_size, …): what `--where tp=8`
 * looks in, since the summary line prints `tp=8`. A name that is no summary name stands for itself.
 */
export function summaryKeys(name: string): string[] {
  const keys = Object.hasOwn(SUMMARY_KEYS, name) ? SUMMARY_KEYS[name]! : [];
  return keys.includes(name) ? keys : [name, ...keys];
}

const SUMMARY_ENTRIES = Object.entries(SUMMARY_KEYS);

export function configSummary(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, keys] of SUMMARY_ENTRIES) {
    for (const k of keys) {
      if (config[k] !== undefined) {
        out[name] = config[k];
        break;
      }
    }
  }
  return out;
}

function modelOf(l: LaunchBuilder): string | null {
  const c = l.config;
  for (const k of ['model_path', 'model', 'model_tag', 'model_id'])
    if (typeof c[k] === 'string') return c[k] as string;
  return null;
}

/** `engineScore`: the detector's score for the engine (Infinity when the user named the engine). */
export function launchReport(l: LaunchBuilder, engine: EngineId | null, engineScore = 0): LaunchReport {
  const rel = l.relativeTime;
  const eng = l.engine ?? engine;
  const end = l.lastTs;
  const origin = l.startTs;
  const phases: PhaseReport[] = l.marks.map((m, i) => {
    const next = l.marks[i + 1];
    const stop = next ? next.ts : end;
    return {
      phase: m.phase,
      start: iso(m.ts, rel),
      at: m.ts !== null && origin !== null ? r2(m.ts - origin) : null,
      duration: m.ts !== null && stop !== null ? r2(Math.max(0, stop - m.ts)) : null,
      line: m.line,
      text: m.text,
      rule: m.rule ?? null,
    };
  });
  const root = l.rootFailure();
  let failure: FailureReport | null = null;
  if (root) {
    const hint = eng ? (engineModule(eng).hints[root.cls] ?? null) : null;
    const evidence: Evidence[] = [];
    if (root.startLine !== null && root.startLine !== root.line)
      evidence.push({ line: root.startLine, text: root.startText ?? 'Traceback (most recent call last):' });
    evidence.push({ line: root.line, text: root.text });
    for (const c of l.consequences) if (c.line !== root.line && c.line !== root.startLine) evidence.push(c);
    failure = {
      class: root.cls,
      line: root.line,
      message: root.message,
      text: root.text,
      exceptionType: root.exceptionType,
      rank: root.tags,
      phase: root.phase,
      time: iso(root.ts, rel),
      hint: root.remedies.length ? `the log suggests: ${root.remedies.join('; ')}` : hint,
      remedies: root.remedies,
      evidence,
    };
  }
  const prog = (p: LaunchBuilder['progress'], curve: Array<[number, number]>): ProgressReport | null =>
    p && {
      phase: p.phase,
      done: p.done,
      total: p.total,
      ratio: r2(p.done / p.total)!,
      what: p.desc,
      rate: r2(p.rate),
      eta: p.remaining,
      line: p.line,
      text: p.text,
      time: iso(p.ts, rel),
      series: curve.map(([t, d]) => [t, d]),
    };
  const gen = l.gen;
  const throughput: ThroughputReport | null =
    gen.count > 0
      ? {
          unit: 'tok/s',
          last: gen.last,
          peak: gen.peak,
          median: gen.median(),
          samples: gen.count,
          peakLine: l.peakSample?.line ?? null,
          peakText: l.peakSample?.text ?? null,
          lastLine: l.lastSampleLine,
          series: l.series.points(),
        }
      : null;
  const serving =
    l.samples > 0 || l.requests > 0
      ? {
          running: { last: l.running.last, peak: l.running.peak },
          queued: { last: l.queued.last, peak: l.queued.peak },
          kvUsage: { last: l.kv.last, peak: l.kv.peak },
          promptThroughput: { last: l.prompt.last, peak: l.prompt.peak },
          requests: l.requests,
        }
      : null;
  const whole: LaunchReport = {
    index: l.index,
    engine: eng,
    version: l.version,
    outcome: l.outcome(),
    // A launch that failed before its log showed any phase failed while starting up.
    phase: l.phase ?? (l.candidates.length ? 'args' : null),
    ...launchConfidence(l, engineScore),
    failure,
    progress: prog(l.progress, l.progressCurve),
    graphProgress: prog(l.graphProgress, l.graphCurve),
    startLine: l.startLine,
    endLine: l.endLine,
    startText: redactText(l.startText),
    startOffset: l.startOffset,
    endOffset: l.endOffset,
    startSeen: l.hasStart,
    startTime: iso(l.startTs, rel),
    endTime: iso(l.lastTs, rel),
    duration: l.startTs !== null && l.lastTs !== null ? r2(l.lastTs - l.startTs) : null,
    lastProgressLine: l.lastProgressLine,
    lastProgressTime: iso(l.lastProgressTs, rel),
    quietFor: l.lastProgressTs !== null && l.lastTs !== null ? r2(l.lastTs - l.lastProgressTs) : null,
    model: modelOf(l),
    config: l.config,
    configSummary: configSummary(l.config),
    configSources: l.configSources,
    phases,
    throughput,
    serving,
    ready: l.ready && { line: l.ready.line, text: l.ready.text, time: iso(l.ready.ts, rel) },
    shutdown: l.shutdown && { line: l.shutdown.line, text: l.shutdown.text, time: iso(l.shutdown.ts, rel) },
    degraded: l.degraded,
    stallHints: l.stallHints,
    recoveredFailures: l.recovered.map((c) => ({ class: c.cls, line: c.line, message: c.message })),
    ranks: [...l.ranks].sort(),
    pids: [...l.pids],
    relativeTime: rel,
    startTs: l.startTs,
    endTs: l.lastTs,
    lastProgressTs: l.lastProgressTs,
  };
  const ray = l.ray;
  if (ray === null) return whole;
  // One log, several nodes (Ray): read as a multi-node launch when two nodes are at work (multinode/ray.ts).
  const nodes = ray.nodes.map((n) => ({
    ip: n.ip,
    actors: n.actors,
    lines: n.lines,
    skew: n.skew,
    launch: launchReport(n.b, eng),
  }));
  // Ray naming a dead worker's node counts once the launch failed.
  const blame = whole.outcome === 'crashed' ? ray.blame : [];
  return isRayMultiNode(nodes, ray.localActors, blame) ? rayLaunch(whole, nodes, blame) : whole;
}

/**
 * The engine as a report prints it: `other` for a log that no engine module reads but that names its program
 * (the generic reader's, engines/generic.ts), null otherwise. A launch read from lines any engine prints alike
 * (PyTorch's NCCL watchdog, the safetensors shard bar) names no engine and no other program: the log does not
 * tell which it is (issue 22; the labels' `engine: null`, as the analysis report's own engine).
 */
export function reportedEngine(
  r: Pick<AnalysisReport, 'engine' | 'program' | 'launches'>,
): EngineId | 'other' | null {
  return r.engine ?? ((r.program ?? null) !== null ? 'other' : null);
}

/**
 * What a report is built from: a LogAnalyzer (analyzer.ts), as far as the report reads it. Named here so that the
 * report knows the analyzer by its shape and the analyzer can build its report without a cycle between them.
 */
export interface ReportSource {
  engine(): EngineId | null;
  readonly detector: Pick<EngineDetector, 'scores' | 'locked' | 'program'>;
  readonly lineCount: number;
  readonly bytes: number;
  readonly truncatedLines: number;
  readonly launches: readonly LaunchBuilder[];
}

export function buildReport(a: ReportSource): AnalysisReport {
  const engine = a.engine();
  const scores = a.detector.scores;
  // A detector locked with no votes at all was told the engine (--engine): that is not weak evidence.
  const told = a.detector.locked !== null && Object.values(scores).every((v) => v === 0);
  const scoreOf = (l: LaunchBuilder): number => {
    const e = l.engine ?? engine;
    return told ? Number.POSITIVE_INFINITY : e ? scores[e] : 0;
  };
  return {
    engine,
    program: engine === null ? a.detector.program : null,
    engineScores: { ...a.detector.scores },
    lines: a.lineCount,
    bytes: a.bytes,
    truncatedLines: a.truncatedLines,
    launches: a.launches.map((l, i, all) =>
      superseded(launchReport(l, engine, scoreOf(l)), i < all.length - 1),
    ),
  };
}

/**
 * The report a closed launch (`LogAnalyzer.settle`) will have in the report of the whole file, or null while
 * that can still change. It depends on the file only through the detector: the engine, when the launch has
 * none of its own, and whether the engine's score is weak (scores only grow, and a detector told the engine
 * takes no votes).
 */
export function settledReport(a: ReportSource, l: LaunchBuilder): LaunchReport | null {
  if (l.engine === null) return null;
  const scores = a.detector.scores;
  const told = a.detector.locked !== null && Object.values(scores).every((v) => v === 0);
  const score = told ? Number.POSITIVE_INFINITY : scores[l.engine];
  if (score < WEAK_ENGINE_SCORE) return null;
  return superseded(launchReport(l, l.engine, score), true);
}

/**
 * A launch that another launch followed in the same file is over, whatever its last line said: without a crash
 * or a shutdown line it was killed without a word (kill -9, then `>> server.log` again). Only the builder of
 * the whole file knows which launch is not the last, so this is decided here, not in LaunchBuilder.
 */
function superseded(r: LaunchReport, followed: boolean): LaunchReport {
  if (!followed || r.outcome === 'crashed' || r.outcome === 'shutdown') return r;
  return { ...r, outcome: 'ended' };
}
