/**
 * `firedup status --explain`: for the latest launch, which lines drove each conclusion (engine, start,
 * phases, progress, ready, failure, config) and the engine-looking lines no rule recognised. Built from an
 * analyzer read with `explain: true`; plain data, printed as text or JSON by the CLI.
 */

import type { EngineId, Evidence, FailureClass, Outcome, Phase } from '../base/types.js';
import { ENGINES } from '../base/types.js';
import { LITERAL, NUMBER_GUTTERS } from '../lines/wrapper.js';
import type { LogAnalyzer } from './analyzer.js';
import type { Confidence, FailureSource } from './confidence.js';
import { failureSource } from './confidence.js';
import type { Vote } from './detect.js';
import type { UnrecognisedShape } from './explain.js';

export interface Explanation {
  launch: { number: number; of: number; startLine: number; endLine: number };
  outcome: Outcome;
  phase: Phase | null;
  confidence: Confidence;
  confidenceReasons: string[];
  engine: {
    id: EngineId | null;
    version: string | null;
    /** True when `--engine` named it: no line voted. */
    forced: boolean;
    /** Engines that got votes, the highest score first, each with its heaviest voting lines. */
    votes: Array<{ engine: EngineId; score: number; lines: number; top: Vote[] }>;
  };
  start: { seen: boolean; line: number; text: string; anchors: string[] };
  phases: Array<{ phase: Phase; line: number; text: string; rule: string | null }>;
  progress: Array<{ what: string; done: number; total: number; line: number }>;
  ready: Evidence | null;
  serving: { samples: number; requests: number; peakLine: number | null; peakText: string | null } | null;
  shutdown: Evidence | null;
  failure: {
    class: FailureClass;
    message: string;
    exceptionType: string | null;
    /** Where the crash was read from: an exception, a cause line, a cut traceback, a consequence line. */
    source: FailureSource;
    evidence: Evidence[];
  } | null;
  config: Array<{ source: string; line: number }>;
  /** What was peeled from the lines besides the wrappers firedup knows (lines/wrapper.ts, gutter.ts), said plainly. */
  wrapper: string | null;
  /** Over the whole file: engine-looking lines (the engine's logger prefix, info or above) no rule matched. */
  unrecognised: { lines: number; distinct: number; dropped: number; shapes: UnrecognisedShape[] };
}

/** The latest launch explained; null when the log holds none. `a` must have been read with `explain: true`. */
export function explainLatest(a: LogAnalyzer): Explanation | null {
  const report = a.report();
  const l = a.launches[a.launches.length - 1];
  const r = report.launches[report.launches.length - 1];
  if (!l || !r) return null;
  const d = a.detector;
  const forced = d.locked !== null && Object.values(d.scores).every((v) => v === 0);
  const votes = ENGINES.filter((e) => d.scores[e] > 0)
    .sort((x, y) => d.scores[y] - d.scores[x])
    .map((e) => ({ engine: e, score: d.scores[e], lines: d.votes[e].lines, top: [...d.votes[e].top] }));
  const root = l.rootFailure();
  const progress = [r.progress, r.graphProgress]
    .filter((p) => p !== null)
    .map((p) => ({ what: p.what, done: p.done, total: p.total, line: p.line }));
  const shapes = a.explainer?.list() ?? [];
  return {
    launch: { number: r.index + 1, of: report.launches.length, startLine: r.startLine, endLine: r.endLine },
    outcome: r.outcome,
    phase: r.phase,
    confidence: r.confidence,
    confidenceReasons: r.confidenceReasons,
    engine: { id: r.engine, version: r.version, forced, votes },
    start: { seen: r.startSeen, line: r.startLine, text: r.startText, anchors: [...l.anchors] },
    phases: r.phases.map((p) => ({ phase: p.phase, line: p.line, text: p.text, rule: p.rule })),
    progress,
    ready: r.ready && { line: r.ready.line, text: r.ready.text },
    serving:
      r.serving || r.throughput
        ? {
            samples: r.throughput?.samples ?? 0,
            requests: r.serving?.requests ?? 0,
            peakLine: r.throughput?.peakLine ?? null,
            peakText: r.throughput?.peakText ?? null,
          }
        : null,
    shutdown: r.shutdown && { line: r.shutdown.line, text: r.shutdown.text },
    failure:
      r.failure && root
        ? {
            class: r.failure.class,
            message: r.failure.message,
            exceptionType: r.failure.exceptionType,
            source: failureSource(root),
            evidence: r.failure.evidence,
          }
        : null,
    config: r.configSources,
    wrapper: describeWrapper(a.wrapper),
    unrecognised: {
      lines: a.explainer?.lines ?? 0,
      distinct: shapes.length,
      dropped: a.explainer?.dropped ?? 0,
      shapes,
    },
  };
}

/** A learned wrapper as a person reads it: the text itself, a number column by its tool, or its shape. */
function describeWrapper(w: string | null): string | null {
  if (w === null) return null;
  if (w in NUMBER_GUTTERS) return `line numbers (${w.slice(1)})`;
  if (w.startsWith(LITERAL)) return JSON.stringify(w.slice(LITERAL.length));
  return `${JSON.stringify(w.replace(/\\t/g, '\t'))} by shape (w: a word of letters or digits)`;
}
