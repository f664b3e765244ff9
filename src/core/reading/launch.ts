/**
 * Everything the log says about one launch, accumulated line by line in constant memory.
 */

import { SeriesSummary, TimeSeries } from '../base/stats.js';
import type { EngineId, Evidence, FailureClass, Outcome, Phase } from '../base/types.js';
import { phaseRank, phaseRankIn } from '../base/types.js';
import { classifyRaise } from '../engines/catalog-match.js';
import type { ProgressReading, RaiseRule, ServingSample } from '../engines/types.js';
import type { ServingRunData } from './bulk.js';
import type { ExceptionEvent } from './traceback.js';

export interface FailureCandidate {
  cls: FailureClass;
  line: number;
  text: string;
  message: string;
  exceptionType: string | null;
  tags: string | null;
  ts: number | null;
  /** 3: a specific cause; 2: a generic exception; 1: a consequence line (sigquit, Killed, engine failed). */
  strength: number;
  remedies: string[];
  startLine: number | null;
  startText: string | null;
  /** The phase the launch was in when this happened. */
  phase: Phase | null;
}

export interface PhaseMark {
  phase: Phase;
  ts: number | null;
  line: number;
  text: string;
  /** The rule that put the mark: a signature id, `progress-bar`, or `traceback-frame` (see FRAME_RULE). */
  rule?: string;
}

/** The `rule` of a phase read from the frames of a traceback rather than from a line the engine logged. */
export const FRAME_RULE = 'traceback-frame';

export interface ProgressState extends ProgressReading {
  line: number;
  /** The bar's line as the log shows it (cut), so evidence quotes the line at `line`. */
  text: string;
  ts: number | null;
  phase: Phase;
}

const MAX_CONSEQUENCES = 8;

/**
 * Lines between a library's error report and the traceback of the call it failed: NCCL prints its WARN and
 * return-code chain per rank (a dozen lines a rank), interleaved with the other ranks' before one raises.
 */
const WARNED_REACH = 40;

/** Points kept per load curve: past this, every other one is dropped (a curve of thousands of updates). */
const MAX_CURVE = 512;

function addCurvePoint(curve: Array<[number, number]>, ts: number, done: number): void {
  const last = curve[curve.length - 1];
  // `\r` refreshes repeat the same count: only a change of count adds a point.
  if (last && last[1] === done) return;
  curve.push([ts, done]);
  if (curve.length > MAX_CURVE) {
    const kept = curve.filter((_, i) => i % 2 === 0 || i === curve.length - 1);
    curve.length = 0;
    curve.push(...kept);
  }
}

export class LaunchBuilder {
  readonly startLine: number;
  readonly startOffset: number;
  endLine: number;
  endOffset: number;
  startTs: number | null = null;
  lastTs: number | null = null;
  /**
   * Where the launch's own lines stopped, once it crashed or shut down and the lines after say nothing more of
   * it: they may be the next launch's, written before the line that starts it (see LogAnalyzer.open). Null
   * while its last line is its own.
   */
  ownEnd: { line: number; offset: number; ts: number | null } | null = null;
  /** Timestamp of the last line that showed the launch moving (phase, progress, serving). */
  lastProgressTs: number | null = null;
  lastProgressLine: number;
  relativeTime = false;
  /**
   * The engine this launch's own lines name: the one its votes (below) weigh most, or, once the detector is locked
   * and takes no more votes, the locked engine whose rules read its lines. Null while neither says: the report
   * then takes the whole file's. A rule that merely matched a line decides nothing, as rules of several engines
   * match the shapes they share (uvicorn, NCCL, tqdm bars, generic phrases).
   */
  engine: EngineId | null = null;
  /** The detector's votes from this launch's lines, per engine (engines/evidence.ts weights). */
  votes: Partial<Record<EngineId, number>> = {};
  version: string | null = null;
  anchors = new Set<string>();
  config: Record<string, unknown> = {};
  configSources: Array<{ source: string; line: number }> = [];
  phase: Phase | null = null;
  /**
   * A rank's `weights loaded` signature read while another rank's shard bar was short of its total: marked when
   * that bar completes (LogAnalyzer.progressBar). On the launch, so a checkpoint keeps it.
   */
  loadedWhileBar: string | null = null;
  /** First mark of each phase, in the order reached. */
  readonly marks: PhaseMark[] = [];
  readonly marked = new Set<Phase>();
  progress: ProgressState | null = null;
  graphProgress: ProgressState | null = null;
  /** The load curve: `[ts, done]` of each bar update of the current bar (bounded, see addCurvePoint). */
  progressCurve: Array<[number, number]> = [];
  graphCurve: Array<[number, number]> = [];
  ready: (Evidence & { ts: number | null }) | null = null;
  /**
   * The line of a caught exception's announcement (a `catches` signature) while the unframed lines under it are
   * read: failures read from them are the caught exception's, moved to `recovered`.
   */
  caughtFrom: number | null = null;
  /**
   * The logger prefix of that announcement (the text before its message): a logger that repeats its prefix on
   * each line of a record (vLLM's NewLineFormatter, vllm/logging_utils/formatter.py) frames the traceback's lines
   * with it, and they are still the caught exception's.
   */
  caughtPrefix: string | null = null;
  /** The HTTP server said it listens before the model was loaded (a signature's `after`): not ready by itself. */
  listening: Evidence | null = null;
  /**
   * The launch's first line was a listening line read as ready (a signature's `afterKnown`: most builds print it
   * once the model is in), and nothing has followed it yet: a start-up line next says the build listens first.
   */
  readyAtStart = false;
  shutdown: (Evidence & { ts: number | null }) | null = null;
  readonly gen = new SeriesSummary(true);
  readonly running = new SeriesSummary();
  readonly queued = new SeriesSummary();
  readonly kv = new SeriesSummary();
  readonly prompt = new SeriesSummary();
  readonly series = new TimeSeries(512);
  peakSample: (ServingSample & { text: string }) | null = null;
  lastSampleLine: number | null = null;
  samples = 0;
  requests = 0;
  candidates: FailureCandidate[] = [];
  /** Failures the launch got past (a request error, a warm-up retry): kept for the record. */
  recovered: FailureCandidate[] = [];
  consequences: Evidence[] = [];
  degraded: Evidence[] = [];
  /**
   * The last degraded line that names a failure class (a signature's `failure`: NCCL's WARN and its return-code
   * chain) and its line: a traceback cut before its exception that opens soon after is that failure's (warnedClass).
   */
  warned: { line: number; cls: FailureClass } | null = null;
  stallHints: Evidence[] = [];
  /** Stall hints read since the last serving line that showed work (a request, tokens made): see stuck(). */
  quietHints = 0;
  /** The last serving stats read in a row that had requests running and made no token: see stuck(). */
  idleSamples = 0;
  ranks = new Set<string>();
  pids = new Set<number>();
  hasStart: boolean;
  /** Lines an engine's own rules recognised in this launch (common PyTorch/NCCL/shell rules not counted): confidence. */
  engineLines = 0;
  /** The launch's first line (cut at 256 characters): with its offset, what tells this launch from another. */
  startText = '';
  /**
   * One log, several nodes: Ray forwards its workers' lines to the driver's log with `ip=` naming their node.
   * Null until a line of this launch carries one (rayLine); then every line is also read into its node's own
   * builder, through the few methods below that move a launch (mark, setProgress, the failure ones).
   */
  ray: RayNodes | null = null;

  constructor(
    readonly index: number,
    line: number,
    offset: number,
    hasStart: boolean,
  ) {
    this.startLine = line;
    this.endLine = line;
    this.startOffset = offset;
    this.endOffset = offset;
    this.lastProgressLine = line;
    this.hasStart = hasStart;
  }

  /** Adds a line's votes; the engine becomes the one with the most (the current one kept on a tie). */
  vote(v: Partial<Record<EngineId, number>>): void {
    let best = this.engine;
    let top = best === null ? 0 : (this.votes[best] ?? 0);
    for (const id in v) {
      const e = id as EngineId;
      const n = (this.votes[e] = (this.votes[e] ?? 0) + v[e]!);
      if (e === best) top = n;
    }
    for (const id in this.votes) {
      const e = id as EngineId;
      if (this.votes[e]! > top) {
        top = this.votes[e]!;
        best = e;
      }
    }
    this.engine = best;
  }

  touch(line: number, offset: number, ts: number | null): void {
    this.endLine = line;
    this.endOffset = offset;
    if (ts !== null) {
      if (this.startTs === null) this.startTs = ts;
      this.lastTs = ts;
    }
  }

  /**
   * Another launch starts: one that crashed or shut down ends at its own last line, not at the lines that came
   * between (the relaunch's own first lines, a shell's), so its last phase lasts until it failed or stopped.
   */
  endAtOwnLine(): void {
    const own = this.ownEnd;
    if (own === null || !this.ended) return;
    this.endLine = own.line;
    this.endOffset = own.offset;
    this.lastTs = own.ts;
    this.ownEnd = null;
  }

  /** Anything past `args` that shows the launch got somewhere. */
  get progressed(): boolean {
    return this.phase !== null && phaseRank(this.phase) > phaseRank('dist_init');
  }

  get ended(): boolean {
    return this.shutdown !== null || this.candidates.length > 0;
  }

  mark(phase: Phase, line: number, ts: number | null, text: string | (() => string), rule?: string): void {
    if (this.ray !== null) this.nodeOf(line).mark(phase, line, ts, text, rule);
    if (!this.marked.has(phase)) {
      this.marked.add(phase);
      const mark: PhaseMark = { phase, ts, line, text: typeof text === 'string' ? text : text() };
      if (rule !== undefined) mark.rule = rule;
      this.marks.push(mark);
    }
    if (this.phase === null || phaseRankIn(this.engine, phase) > phaseRankIn(this.engine, this.phase)) {
      this.phase = phase;
      this.moved(line, ts);
    } else if (phase === this.phase) {
      this.lastProgressTs = ts ?? this.lastProgressTs;
      this.lastProgressLine = line;
    }
  }

  /** A phase that moves only the node of `line` (a Ray launch's node behind the launch as a whole). */
  markNode(
    phase: Phase,
    line: number,
    ts: number | null,
    text: string | (() => string),
    rule?: string,
  ): void {
    if (this.ray !== null) this.nodeOf(line).mark(phase, line, ts, text, rule);
  }

  moved(line: number, ts: number | null): void {
    this.lastProgressTs = ts ?? this.lastProgressTs;
    this.lastProgressLine = line;
  }

  /**
   * The server became ready or served a request after a failure: that failure did not kill it (a failed
   * request, a warm-up retry). Other ranks finishing a phase after one rank died do not count.
   */
  recover(): void {
    if (this.ray !== null) for (const n of this.ray.nodes) n.b.recover();
    if (this.candidates.length && this.shutdown === null) {
      this.recovered.push(...this.candidates);
      this.candidates = [];
      this.consequences = [];
    }
  }

  /** Failures read after `line` (a caught exception's traceback) are ones the launch got past. */
  recoverFrom(line: number): void {
    if (this.ray !== null) for (const n of this.ray.nodes) n.b.recoverFrom(line);
    if (!this.candidates.some((c) => c.line > line)) return;
    const kept: FailureCandidate[] = [];
    for (const c of this.candidates) (c.line > line ? this.recovered : kept).push(c);
    this.candidates = kept;
    // the traceback's header stood for its exception until the exception line came: one entry for both
    const r = this.recovered;
    this.recovered = r.filter(
      (x) => x.exceptionType !== null || !r.some((c) => c !== x && c.startLine === x.line),
    );
  }

  setProgress(p: ProgressState): void {
    if (this.ray !== null) this.nodeOf(p.line).setProgress(p);
    const graph = p.phase === 'cuda_graph';
    const prev = graph ? this.graphProgress : this.progress;
    // Another bar (other items, another total) starts its own curve.
    if (prev && (prev.desc !== p.desc || prev.total !== p.total)) {
      if (graph) this.graphCurve = [];
      else this.progressCurve = [];
    }
    if (p.ts !== null) addCurvePoint(graph ? this.graphCurve : this.progressCurve, p.ts, p.done);
    if (graph) this.graphProgress = p;
    else this.progress = p;
    this.moved(p.line, p.ts);
  }

  addSample(s: ServingSample, text: () => string): void {
    this.samples++;
    if (s.genTps !== null) {
      this.gen.add(s.genTps);
      if (s.ts !== null) this.series.add(s.ts, s.genTps);
      if (this.peakSample === null || s.genTps > (this.peakSample.genTps ?? -1))
        this.peakSample = { ...s, text: text() };
    }
    if (s.promptTps !== null) this.prompt.add(s.promptTps);
    if (s.running !== null) this.running.add(s.running);
    if (s.queued !== null) this.queued.add(s.queued);
    if (s.kvUsage !== null) this.kv.add(s.kvUsage);
    this.lastSampleLine = s.line;
    this.lastProgressTs = s.ts ?? this.lastProgressTs;
    this.lastProgressLine = s.line;
    if (this.candidates.length) this.recover();
  }

  /** Applies a run of serving lines read in bulk: the same changes as the general path makes line by line. */
  applyRun(r: ServingRunData): void {
    if (this.ray !== null) rayRun(this.ray, r);
    // Serving lines after a stop tell nothing more of this launch (see ownEnd), read in bulk or not.
    if (this.ended) this.ownEnd ??= { line: this.endLine, offset: this.endOffset, ts: this.lastTs };
    // (a run read in bulk is a busy server's: it ends any stall read before it; not one of lines that only move
    // the launch's end, generic-scan.ts)
    if (r.busy !== false) {
      this.quietHints = 0;
      this.idleSamples = 0;
    }
    if (this.startTs === null) this.startTs = r.firstTs;
    this.endLine = r.lastLine;
    this.endOffset = r.lastOffset;
    if (r.lastTs !== null) this.lastTs = r.lastTs;
    for (const t of r.tags) this.ranks.add(t);
    if (r.pids) for (const p of r.pids) this.pids.add(p);
    // Every line of a bulk run is one an engine signature would have matched on the general path (the JS
    // scanners count the ones that were).
    this.engineLines += r.engineLines ?? r.lines;
    this.requests += r.requests;
    this.samples += r.samples;
    this.gen.merge(r.gen);
    this.prompt.merge(r.prompt);
    this.running.merge(r.running);
    this.queued.merge(r.queued);
    this.kv.merge(r.kv);
    this.series.merge(r.series);
    if (r.peak !== null && (this.peakSample === null || r.peak.genTps > (this.peakSample.genTps ?? -1)))
      this.peakSample = { ...r.peak };
    if (r.lastSampleLine !== null) this.lastSampleLine = r.lastSampleLine;
    if (r.engineLines === undefined) {
      this.lastProgressTs = r.lastTs;
      this.lastProgressLine = r.lastLine;
    } else if (r.progressLine !== undefined) {
      this.lastProgressTs = r.progressTs ?? this.lastProgressTs;
      this.lastProgressLine = r.progressLine;
    }
  }

  addFailure(c: FailureCandidate): void {
    if (this.ray !== null) this.nodeOf(c.line).addFailure({ ...c });
    // One line, one failure: a signature and the traceback reader may both see the exception line.
    const same = this.candidates.find((x) => x.line === c.line);
    if (same) {
      const before = { ...same };
      if (
        c.strength > same.strength ||
        (c.strength === same.strength && c.cls !== 'python_exception' && same.cls === 'python_exception')
      ) {
        Object.assign(same, c);
      }
      // Each reader knows something the other does not: the traceback its start and rank, a signature its class.
      same.tags ??= c.tags ?? before.tags;
      same.startLine ??= c.startLine ?? before.startLine;
      same.startText ??= c.startText ?? before.startText;
      same.exceptionType ??= c.exceptionType ?? before.exceptionType;
      if (!same.remedies.length) same.remedies = c.remedies.length ? c.remedies : before.remedies;
      return;
    }
    this.candidates.push(c);
  }

  /** A cut traceback's `raise` line names the exception the file does not show. */
  refineFailure(line: number, cls: FailureClass, message: string): void {
    if (this.ray !== null) for (const n of this.ray.nodes) n.b.refineFailure(line, cls, message);
    const c = this.candidates.find((x) => x.line === line);
    if (c && c.strength < 2) {
      c.cls = cls;
      c.message = message;
    }
  }

  /** The same, keeping the message: a cut traceback's class told by its innermost frame (frames/cut-class.ts). */
  refineClass(line: number, cls: FailureClass): void {
    const c = this.candidates.find((x) => x.line === line);
    if (c) this.refineFailure(line, cls, c.message);
  }

  /** An exception's message came on a later line (pydantic's wrapped error): its class is read again from it. */
  reclassify(line: number, cls: FailureClass, message: string): void {
    if (this.ray !== null) for (const n of this.ray.nodes) n.b.reclassify(line, cls, message);
    const c = this.exceptionAt(line);
    if (!c) return;
    c.cls = cls;
    c.message = message;
    c.strength = classStrength(cls);
  }

  private exceptionAt(line: number): FailureCandidate | undefined {
    return this.candidates.find((x) => x.line === line && x.exceptionType !== null);
  }

  /**
   * A line that carries on an exception's message names a class (TracebackTracker.continued): it replaces the
   * exception's own only where that is generic (python_exception, other, or one the type alone gave).
   */
  continueFailure(ev: ExceptionEvent, cls: FailureClass, text: string): void {
    if (this.ray !== null) for (const n of this.ray.nodes) n.b.continueFailure(ev, cls, text);
    const c = this.exceptionAt(ev.line);
    if (!c || c.cls === cls) return;
    if (!(c.cls === 'python_exception' || c.cls === 'other' || (ev.typeOnly && c.cls === ev.cls))) return;
    c.cls = cls;
    c.message = `${c.message} … ${text}`;
    c.strength = classStrength(cls);
  }

  dropFailure(line: number | null): void {
    if (this.ray !== null) for (const n of this.ray.nodes) n.b.dropFailure(line);
    if (line !== null) this.candidates = this.candidates.filter((c) => c.line !== line);
  }

  /**
   * The exception line of a traceback came: the failure its header stood for until then (a cut traceback's
   * `python_exception`) is that exception's, read now. Without this a consequence (`other`, weaker than a cut
   * traceback) would lose to its own traceback's header.
   */
  dropHeader(startLine: number): void {
    if (this.ray !== null) for (const n of this.ray.nodes) n.b.dropHeader(startLine);
    this.candidates = this.candidates.filter(
      (c) => !(c.line === startLine && c.startLine === startLine && c.exceptionType === null),
    );
  }

  addConsequence(e: Evidence): void {
    if (this.consequences.length < MAX_CONSEQUENCES) this.consequences.push(e);
  }

  /** The root cause: the most specific failure, the earliest among equals. */
  rootFailure(): FailureCandidate | null {
    let best: FailureCandidate | null = null;
    for (const c of this.candidates) if (best === null || c.strength > best.strength) best = c;
    return best;
  }

  /**
   * The builder of the node whose line `line` is (a failure is often read a few lines after its own line, when
   * the traceback ends): the line being read's node when it is not among the recent ones.
   */
  private nodeOf(line: number): LaunchBuilder {
    const r = this.ray!;
    const rec = r.recent;
    for (let i = rec.length - 2; i >= 0; i -= 2) if (rec[i] === line) return r.nodes[rec[i + 1]!]!.b;
    return r.nodes[r.cur]!.b;
  }

  /**
   * The ready read from the fragment's first line (readyAtStart) was the HTTP server listening before the model
   * loaded: a start-up line followed it. The line is kept as `listening`, and the launch has no phase yet.
   */
  listenedFirst(): void {
    const r = this.ready;
    this.readyAtStart = false;
    if (r === null) return;
    this.listening ??= { line: r.line, text: r.text };
    this.ready = null;
    this.marked.delete('ready');
    const i = this.marks.findIndex((m) => m.phase === 'ready');
    if (i >= 0) this.marks.splice(i, 1);
    this.phase = null;
  }

  /**
   * The class a traceback opening at `line` takes while its exception line is not seen: a degraded line's class
   * read at most WARNED_REACH lines before it (the library's own error report of the call the traceback raises
   * from), else null.
   */
  warnedClass(line: number): FailureClass | null {
    const w = this.warned;
    return w !== null && line - w.line <= WARNED_REACH ? w.cls : null;
  }

  /** Whether the server got as far as ready. */
  up(): boolean {
    return this.phase !== null && phaseRank(this.phase) >= phaseRank('ready');
  }

  /**
   * A serving launch whose last lines say it stopped making progress: two stall hints in a row (vLLM's engine
   * core waiting a minute each on workers still inside one step), or three stats lines in a row with requests
   * running and no token made (an interval each, 5-10 s). Still going, not serving: the label scheme's hung.
   */
  stuck(): boolean {
    return this.phase === 'serving' && (this.quietHints >= 2 || this.idleSamples >= 3);
  }

  /** A serving line: one that shows work ends a stall; stats with requests running and nothing made extend it. */
  noteServing(s: ServingSample | null): void {
    const idle = s !== null && s.running !== null && s.running > 0 && s.genTps === 0 && !s.promptTps;
    this.idleSamples = idle ? this.idleSamples + 1 : 0;
    if (!idle) this.quietHints = 0;
  }

  outcome(): Outcome {
    if (this.candidates.length) return 'crashed';
    if (this.shutdown) return 'shutdown';
    if (this.phase === 'serving') return this.stuck() ? 'in_progress' : 'serving';
    if (this.phase === 'ready') return 'ready';
    return 'in_progress';
  }

  /** `engine` (the launch's, else the detected one) lets the engine's own raise sites name the class. */
  fromException(
    ev: ExceptionEvent,
    phase: Phase | null,
    engine: EngineId | null = this.engine,
    rules: readonly RaiseRule[] = [],
  ): FailureCandidate {
    const bare = ev.type.slice(ev.type.lastIndexOf('.') + 1);
    const cls =
      rules.find((r) => r.type.test(bare) && r.message.test(ev.message))?.failure ??
      classifyRaise(engine, ev.type, ev.message, () => ev.cls) ??
      ev.cls;
    return {
      cls,
      line: ev.line,
      text: ev.text,
      message: ev.message ? `${ev.type}: ${ev.message}` : ev.type,
      exceptionType: ev.type,
      tags: ev.tags,
      ts: ev.ts,
      // `other`: the engine's message only points at a cause printed earlier (a consequence).
      strength: classStrength(cls),
      remedies: ev.remedies,
      startLine: ev.startLine,
      startText: ev.startText,
      phase,
    };
  }
}

/** One node of a launch whose lines Ray forwarded into one log (see LaunchBuilder.ray). */
export interface RayNode {
  /** Ray's `ip=` on the node's lines; null for the driver's node (its own lines and its local actors' name none). */
  ip: string | null;
  /** The Ray actor names seen on its lines (`RayWorkerWrapper`), the first few. */
  actors: string[];
  /** Lines read from it (the driver's: 1 when it had lines before the first forwarded one, then counted). */
  lines: number;
  /**
   * How far its clock runs ahead of the driver's node's, from arrival order (null until measured): Ray forwards a
   * line within moments of its writing, so a line stamped `ts` that arrives after the driver's line stamped `d`
   * was written no earlier than `d` (less the forwarding delay): `ts − d` is its skew at most, and the least such
   * difference, over lines written right after a driver line, is the skew.
   */
  skew: number | null;
  b: LaunchBuilder;
}

export interface RayNodes {
  nodes: RayNode[];
  /** Index of the node of the line being read. */
  cur: number;
  /** `[line, node index]` pairs of the last lines read, flat (at most RAY_RECENT pairs). */
  recent: number[];
  /** The driver's node had a Ray actor of its own (a prefix with no ip whose name is not the engine's process). */
  localActors: boolean;
  /** The stamp of the driver's node's last stamped line (its own clock). */
  driverTs: number | null;
  /**
   * Lines in which Ray names the node of a worker that died or failed (the first few): `ip: X` in an
   * ActorDiedError's context, `Worker IP address: X` from the raylet, `ray::Actor.method() (pid=N, ip=X, …)`
   * heading a RayTaskError, `Memory on the node (IP: X, …)` from Ray's memory monitor.
   */
  blame: RayBlame[];
}

export interface RayBlame {
  ip: string;
  line: number;
  text: string;
  /** Ray's memory monitor killed it: out of memory (on the host). Otherwise it died or raised. */
  oom: boolean;
}

const RAY_RECENT = 128;
const RAY_BLAME =
  /^\s*ip: ([0-9A-Fa-f.:]+)\s*$|Worker IP address: ([0-9A-Fa-f.:]+)|\bray::[\w.]+\(\) \(pid=\d+, ip=([0-9A-Fa-f.:]+)|Memory on the node \(IP: ([0-9A-Fa-f.:]+)/;
/**
 * vLLM's own process prefixes (utils decorate_logs: `APIServer`, `EngineCore_DP0`, `Worker_TP1`; V0's
 * `VllmWorkerProcess`): a prefix with one of these names and no ip is the engine's, not a Ray actor's.
 */
const ENGINE_PROCESS = /^(?:APIServer|ApiServer|EngineCore|Worker|VllmWorkerProcess)(?:[_ ]|$)/;

/** A new builder that has read what `p` has read so far (the driver's node's share before any other node's line). */
function cloneBuilder(p: LaunchBuilder): LaunchBuilder {
  const b = new LaunchBuilder(p.index, p.startLine, p.startOffset, p.hasStart);
  b.endLine = p.endLine;
  b.endOffset = p.endOffset;
  b.startTs = p.startTs;
  b.lastTs = p.lastTs;
  b.lastProgressTs = p.lastProgressTs;
  b.lastProgressLine = p.lastProgressLine;
  b.relativeTime = p.relativeTime;
  b.engine = p.engine;
  b.phase = p.phase;
  for (const m of p.marks) b.marks.push({ ...m });
  for (const m of p.marked) b.marked.add(m);
  b.progress = p.progress;
  b.graphProgress = p.graphProgress;
  b.candidates = p.candidates.map((c) => ({ ...c }));
  b.ready = p.ready;
  for (const r of p.ranks) b.ranks.add(r);
  for (const x of p.pids) b.pids.add(x);
  b.startText = p.startText;
  return b;
}

/**
 * Places a line of `launch` on its node, before the launch reads it: from the first line that carries Ray's
 * `ip=`, each node keeps a builder of its own. The driver's node starts as a copy of what the launch read until
 * then (every earlier line was its own), the others empty at their first line.
 */
export function rayLine(
  launch: LaunchBuilder,
  line: {
    no: number;
    offset: number;
    ip?: string | null;
    tags: string | null;
    pid: number | null;
    rel: number | null;
    msg: string;
    text: string;
  },
  ts: number | null,
): void {
  const ip = line.ip ?? null;
  let r = launch.ray;
  if (r === null) {
    if (ip === null) return;
    const seen = launch.startLine < line.no ? 1 : 0;
    r = launch.ray = {
      nodes: [{ ip: null, actors: [], lines: seen, skew: null, b: cloneBuilder(launch) }],
      cur: 0,
      recent: [],
      localActors: false,
      driverTs: seen ? launch.lastTs : null,
      blame: [],
    };
    // The driver's node's own Ray actors may have logged before any other node did.
    for (const t of launch.ranks) {
      const actor = rayActor(t);
      if (actor) {
        r.localActors = true;
        noteActor(r.nodes[0]!, actor);
      }
    }
  }
  let i = r.nodes.findIndex((n) => n.ip === ip);
  if (i < 0) {
    const b = new LaunchBuilder(launch.index, line.no, line.offset, false);
    i = r.nodes.push({ ip, actors: [], lines: 0, skew: null, b }) - 1;
  }
  const n = r.nodes[i]!;
  n.lines++;
  if (ts !== null && line.rel === null) {
    if (ip === null) r.driverTs = ts;
    else if (r.driverTs !== null)
      n.skew = n.skew === null ? ts - r.driverTs : Math.min(n.skew, ts - r.driverTs);
  }
  r.cur = i;
  r.recent.push(line.no, i);
  trimRecent(r);
  const b = n.b;
  b.engine = launch.engine;
  b.touch(line.no, line.offset, ts);
  if (line.tags) {
    b.ranks.add(line.tags);
    const actor = line.pid !== null ? rayActor(line.tags) : null;
    if (actor) {
      noteActor(n, actor);
      if (ip === null) r.localActors = true;
    }
  }
  if (line.pid !== null) b.pids.add(line.pid);
  if (r.blame.length < 4 && (line.msg.includes('ip') || line.msg.includes('IP'))) {
    const m = RAY_BLAME.exec(line.msg);
    const named = m ? (m[1] ?? m[2] ?? m[3] ?? m[4])! : null;
    if (named !== null)
      r.blame.push({ ip: named, line: line.no, text: line.text.slice(0, 512), oom: m![4] !== undefined });
  }
}

/** The Ray actor a process prefix names (`RayWorkerWrapper` of `RayWorkerWrapper pid=…`), unless it is vLLM's own. */
function rayActor(tags: string): string | null {
  const actor = /^[A-Za-z]\w*/.exec(tags)?.[0];
  return actor && !ENGINE_PROCESS.test(actor) ? actor : null;
}

/** The first few actor names a node's lines carry. */
function noteActor(n: RayNode, actor: string): void {
  if (n.actors.length < 4 && !n.actors.includes(actor)) n.actors.push(actor);
}

/** The last RAY_RECENT lines' nodes are kept, no more. */
function trimRecent(r: RayNodes): void {
  if (r.recent.length > RAY_RECENT * 2) r.recent.splice(0, r.recent.length - RAY_RECENT * 2);
}

/**
 * A run of serving lines read in bulk (bulk.ts) is the driver's: the bulk readers take no line with Ray's `ip=`.
 * Its node is moved as the general path's rayLine would have moved it line by line.
 */
function rayRun(r: RayNodes, run: ServingRunData): void {
  const d = r.nodes[0]!;
  d.lines += run.lines;
  r.cur = 0;
  for (let no = Math.max(run.firstLine, run.lastLine - RAY_RECENT + 1); no <= run.lastLine; no++)
    r.recent.push(no, 0);
  trimRecent(r);
  const b = d.b;
  if (b.startTs === null) b.startTs = run.firstTs;
  b.endLine = run.lastLine;
  b.endOffset = run.lastOffset;
  if (run.lastTs !== null) {
    b.lastTs = run.lastTs;
    r.driverTs = run.lastTs;
  }
  for (const t of run.tags) b.ranks.add(t);
  if (run.pids) for (const p of run.pids) b.pids.add(p);
}

/** How much a failure of this class outranks others: a named cause over an unexplained exception over a consequence. */
function classStrength(cls: FailureClass): number {
  return cls === 'python_exception' ? 2 : cls === 'other' ? 1 : 3;
}
