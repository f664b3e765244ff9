/**
 * The log core: bytes in, launches out. Pure and streaming: feed chunks of any size with `push`, call
 * `end`, read `report`. Memory is bounded by the number of launches, not the size of the log.
 */

import { classifyExceptionType, classifyFailureText } from '../base/failure-class.js';
import type { EngineId, FailureClass, LogLine, Phase } from '../base/types.js';
import { PHASES, phaseRank, phaseRankIn } from '../base/types.js';
import { mayHoldSecret, redactText } from '../config/redact.js';
import { CATALOG_ENGINES, type CatalogLine, catalogLine, classifyRaise } from '../engines/catalog-match.js';
import { commonSignatures } from '../engines/common.js';
import { genericSignatures } from '../engines/generic.js';
import { ENGINE_MODULES, engineModule } from '../engines/index.js';
import { firstSignature } from '../engines/signature-index.js';
import type { EngineModule, ServingSample, Signature } from '../engines/types.js';
import { decodeLine, logicalSegments } from '../lines/clean.js';
import { commonGutter, HEAD_CHARS, HEAD_LINES, type HeadLine } from '../lines/gutter.js';
import { closesCall, continuesWrap, cutInCall, HardWrap } from '../lines/hard-wrap.js';
import {
  criPiece,
  type PrefixContext,
  parseLine,
  startsReadable,
  textBeforeMessage,
  withoutKnownWrappers,
} from '../lines/prefix.js';
import { DEFAULT_MAX_LINE, LineSplitter, type RawLineSink } from '../lines/splitter.js';
import { frameInside } from '../lines/wrapper.js';
import { BulkHook, type ServingRunData } from './bulk.js';
import { decodeCheckpoint, encodeCheckpoint } from './checkpoint.js';
import { EngineDetector } from './detect.js';
import { ExplainCollector } from './explain.js';
import { decodedUnits, firstWordShape, firstWordShapeOf, GenericScanner } from './generic-scan.js';
import { type FailureCandidate, FRAME_RULE, LaunchBuilder, rayLine } from './launch.js';
import { PySpyReader } from './pyspy.js';
import { type RangeScan, shiftRun } from './range-scan.js';
import { type AnalysisReport, buildReport } from './report.js';
import {
  exportShapes,
  type LineScanner,
  SCANNERS,
  type ScanEnv,
  type ShapeClassifier,
  type ShapePlan,
} from './scan.js';
import { barPhase, parseBar } from './tqdm.js';
import { TracebackTracker } from './traceback.js';

/**
 * An access line of a probe: load balancers, Kubernetes and Prometheus poll these paths on their own
 * (uvicorn's access lines of vLLM/SGLang/trtllm-serve: `/health`, `/metrics`, `/v1/models`, SGLang's `/get_model_info`,
 * `/get_server_info`; llama-server's server.cpp log_server_request `request: GET /health 127.0.0.1 200`).
 */
const PROBE =
  /(?:"|request: )(?:GET|HEAD) \/(?:health|healthz|ping|metrics|v1\/models|get_model_info|get_server_info|readyz?|livez?)(?:[?/ "]|$)/;

/** An inference request to the OpenAI-compatible API (a client's, not an engine's own warm-up). */
const CLIENT_POST = /"POST \/v1\/(?:chat\/completions|completions|embeddings|responses|messages)[?" ]/;

export interface AnalyzerOptions {
  /** Skip detection: read the log as this engine's. */
  engine?: EngineId;
  /** Year for timestamps that print none (vLLM's `MM-DD hh:mm:ss`); the CLI passes the file's mtime year. */
  year?: number;
  /** Longest line kept, in bytes; the rest of a longer line is dropped (the lines after it are not). */
  maxLine?: number;
  /** Read busy SGLang serving lines in bulk (default). Off, every line takes the general path: tests compare the two. */
  bulk?: boolean;
  /**
   * Also collect the engine-looking lines no rule recognised (`firedup status --explain`). Not part of a
   * checkpoint: an explaining read is always a read from the start, so the normal path stays as it was.
   */
  explain?: boolean;
}

const NEWLINE = Buffer.from('\n');
/**
 * The engines whose serving lines a worker reads with this thread's table of shapes: those whose serving lines
 * print no time, so that a worker's runs depend on no state but the launch's (see `shapePlan`).
 */
const WORKER_SCANNED: ReadonlySet<EngineId> = new Set<EngineId>(['llamacpp']);
/** What a shape scanner never takes on a shape's word: digit-dependent credential masks, traceback lines, slog. */
const SHAPE_UNSAFE =
  /hf_|sk-|gh[pousr]_|github_pat_|AKIA|Bearer|Traceback|File "|Error|Exception|Interrupt|SystemExit|raise |^\s*\^|^time=/;
/**
 * Where a credential may follow (a flag's value, `scheme://user:pass@host`: config/redact.ts CLI_RE and its URL
 * mask): never read by shape by the engines' scanners; by the generic reader only when no line of the shape can
 * be masked (`flagSafe`).
 */
const FLAG_OR_URL = /:\/\/|--/;

/**
 * Whether no line of this line's generic shape (generic-scan.ts: its runs of digits and its stamp set aside) can
 * carry a credential that redactText masks, for a line with `--` or `://`. redactText masks nothing in a text
 * without SECRET_HINT (mayHoldSecret), whose words and token prefixes hold no digit, so digits rewritten do not
 * make one; but its `://…:…@` branch spans the stamp's separator (a blank or a `T`, one mark in the shape), so a
 * URL with an `@` is left to the general path.
 */
function flagSafe(text: string): boolean {
  return !mayHoldSecret(text) && !(text.includes('@') && text.includes('://'));
}
/**
 * A traceback cut before its exception, stamped 30 minutes after the launch's line before it: torch.distributed's
 * default process-group timeout (torch/distributed/constants.py default_pg_timeout, 30 min; SGLang's
 * --dist-timeout and vLLM leave it unset), so a collective (a gloo or NCCL barrier, broadcast) waited out its
 * timeout and raised. A few seconds more for the watchdog's poll.
 */
function collectiveTimeoutGap(prev: number | null, ts: number | null): boolean {
  if (prev === null || ts === null) return false;
  const gap = ts - prev;
  return gap >= DIST_TIMEOUT_S && gap < DIST_TIMEOUT_S + 30;
}
const DIST_TIMEOUT_S = 1800;

/** A weight-loading progress bar short of its total is the launch's last progress: a rank is still loading. */
function otherRankLoading(launch: LaunchBuilder): boolean {
  const p = launch.progress;
  return (
    launch.phase === 'loading_weights' && p !== null && p.phase === 'loading_weights' && p.done < p.total
  );
}

/** The rule prefix of a phase a failure line names (`failure:<signature id>`). */
const FAILURE_RULE = 'failure:';

/** The rule `status --explain` names for a line read through the engine-source catalog. */
const CATALOG_RULE = 'engine-source catalog';
/** The same for a line of the server hosting the engine (Triton Inference Server's catalog). */
const HOST_CATALOG_RULE = 'engine-source catalog (host server)';
/** Rules that read the hosting server's lines (Triton's model load: common.ts triton_loading, its catalog). */
const HOST_RULES: ReadonlySet<string> = new Set([
  HOST_CATALOG_RULE,
  'triton_loading',
  // trtllm.ts's Triton rules: the server's start, its repository and the Python models around the engine
  'triton_start',
  'triton_init',
  'triton_repository',
  'triton_model_loading',
]);

/**
 * Triton Inference Server hosts the engine: its model load (`loading: m:1` … `successfully loaded 'm'`) holds the
 * engine's whole startup, so the engine's own start line after Triton's lines is that load, not a relaunch. A
 * launch only Triton's lines moved has not got anywhere of the engine's own.
 */
function hostOnly(launch: LaunchBuilder): boolean {
  return launch.marks.length > 0 && launch.marks.every((m) => m.rule !== undefined && HOST_RULES.has(m.rule));
}
/** The rules any engine's log can hold: a line they match says nothing about the engine (confidence). */
const COMMON = new Set<Signature>([...commonSignatures, ...genericSignatures]);
/** The most lines, and characters, of the prefix read before any engine evidence that are kept to read again. */
const PREFIX_LINES = 400;
const PREFIX_CHARS = 96 * 1024;
/** A line's votes, as EngineDetector.observe counts them (not locked), without counting them. */
function votesOf(line: LogLine): Partial<Record<EngineId, number>> | null {
  let votes: Partial<Record<EngineId, number>> | null = null;
  for (const e of ENGINE_MODULES) {
    const s = e.detect(line);
    if (s > 0) (votes ??= {})[e.id] = s;
  }
  return votes;
}
/**
 * How much a line's rule claims, by kind: a line known harmless least, then a phase reached, then a server that
 * says something is wrong, then one that stopped, then a crash (LogAnalyzer.leastMatch).
 */
const KIND_CLAIM: Record<Signature['kind'], number> = {
  noise: 0,
  launch: 1,
  phase: 1,
  progress: 1,
  ready: 1,
  serving: 1,
  degraded: 2,
  stall_hint: 2,
  shutdown: 3,
  consequence: 4,
  failure: 5,
};
/** Rules whose lines, after a launch crashed or stopped, still tell of it (see LaunchBuilder.ownEnd). */
const OWN_AFTER_END: ReadonlySet<Signature['kind']> = new Set(['failure', 'consequence', 'shutdown']);
/** Catalog levels at which a `crash` line reports a failure (a warning that mentions one does not). */
const CRASH_LEVELS = new Set(['error', 'exception', 'fatal', 'critical']);
/**
 * CPython's own messages for its built-in exceptions, which a failure line that quotes `str(e)` without the type
 * still shows (`Piecewise CUDA Graph failed with error: 'Ctx' object has no attribute 'n'`, TensorRT-LLM's `Failed
 * to initialize executor on rank 0: …`): Objects/object.c `'%.100s' object has no attribute '%U'`,
 * Objects/moduleobject.c `module '%U' has no attribute '%U'`, Python/ceval.c `name '%.200s' is not defined`,
 * the call errors (`f() takes 2 positional arguments but 3 were given`, `f() missing 1 required positional
 * argument: 'x'`, `f() got an unexpected keyword argument 'x'`), `'%.200s' object is not subscriptable|callable|
 * iterable`, `unsupported operand type(s) for +: …`, `list index out of range`: the code's own exception.
 */
// (CPython's own messages for its built-in exceptions: Objects/longobject.c and floatobject.c ZeroDivisionError
// `integer division or modulo by zero`, `float division by zero`, `division by zero`; Objects/abstract.c TypeError)
const PYTHON_MESSAGE =
  /^(?:integer division or modulo by zero|integer modulo by zero|(?:float )?division by zero|float modulo)$|'[^']+' object has no attribute '|module '[^']+' has no attribute '|name '[^']+' is not defined|\(\) (?:takes \d+ positional arguments? but \d+ (?:was|were) given|missing \d+ required (?:positional|keyword-only) arguments?:|got an unexpected keyword argument ')|'[^']+' object is not (?:subscriptable|callable|iterable)|unsupported operand type\(s\) for |(?:list|tuple) index out of range/;
const STARTUP_PHASES: ReadonlySet<string> = new Set(PHASES.slice(0, PHASES.indexOf('ready')));
/**
 * Whether a request line finds the server up: its launch is ready or beyond, or nothing placed it yet (the line
 * is all a fragment shows of it), unless the port was seen listening before the model was in (`listening`, set
 * by a rule's `after`): then the server was known not ready.
 */
const servingUp = (launch: LaunchBuilder | null) =>
  launch === null || launch.phase === null
    ? launch?.listening == null
    : phaseRank(launch.phase) >= phaseRank('ready');
const isStartupPhase = (p: string): p is Phase => STARTUP_PHASES.has(p);
const exceptionRules = (type: string, message: string) =>
  classifyExceptionType(type) ?? classifyFailureText(`${type}: ${message}`);

/**
 * A byte that no text logger writes: a control character other than NUL (stripped), backspace, tab, CR and
 * ESC, DEL, or a byte that never occurs in UTF-8.
 */
const isBadByte = (c: number) =>
  c < 0x20
    ? c !== 0 && c !== 8 && c !== 9 && c !== 13 && c !== 27
    : c === 0x7f || c >= 0xf5 || c === 0xc0 || c === 0xc1;

/**
 * A line of binary data, not text: a sixteenth of its bytes or more are bad bytes. Only lines
 * with a bad byte in their first 32 are counted, so a text line costs a 32-byte look.
 */
export function binaryLine(buf: Uint8Array, s: number, e: number): boolean {
  const head = Math.min(e, s + 32);
  let i = s;
  while (i < head && !isBadByte(buf[i]!)) i++;
  if (i === head) return false;
  let bad = 0;
  for (; i < e; i++) if (isBadByte(buf[i]!)) bad++;
  return bad * 16 >= e - s;
}

interface Match {
  engine: EngineModule;
  sig: Signature;
  m: RegExpExecArray;
  /** Read with no engine known, and more than one engine's rules take the line: it says nothing of the engine. */
  shared?: boolean;
}

/** A failure read from one line (as opposed to a traceback). */
function lineFailure(
  line: LogLine,
  cls: FailureClass,
  strength: number,
  ts: number | null,
  launch: LaunchBuilder,
): FailureCandidate {
  return {
    cls,
    line: line.no,
    text: line.text,
    message: line.msg,
    exceptionType: null,
    tags: line.tags,
    ts,
    strength,
    remedies: [],
    startLine: null,
    startText: null,
    phase: launch.phase,
  };
}

/**
 * A launch line's anchor: seen twice in one launch, it starts the next. vLLM's data-parallel engine cores each
 * log their own `Initializing a V1 LLM engine` (v1/engine/core.py EngineCore.__init__, one process per DP rank,
 * named `EngineCore_DP{rank}` by v1/engine/utils.py CoreEngineProcManager): the lines of DP ranks ≥ 1 anchor per
 * rank, so four engines starting together are one launch and a relaunch (DP0, or any rank, again) is the next.
 */
function anchorKey(id: string, tags: string | null): string {
  const m = tags === null ? null : /(?:^|\s)(EngineCore_DP([1-9]\d*))(?:\s|$)/.exec(tags);
  return m ? `${id}@${m[1]}` : id;
}

/** Logger frames any program prints: uvicorn's `INFO:     `, Python logging's defaults, glog, a bare stamp. */
const ANY_PROGRAM_FRAME = new Set(['uvicorn', 'pylog', 'glog', 'file', 'bracket']);

/**
 * A line only an engine prints: one of its own rules (not a common one), in no frame that any program prints
 * (every FastAPI app logs uvicorn's `Started server process`, which the engines' rules also read).
 */
function engineOwn(line: LogLine, hit: Match | null): boolean {
  return hit !== null && !COMMON.has(hit.sig) && !(line.frame != null && ANY_PROGRAM_FRAME.has(line.frame));
}

export class LogAnalyzer {
  private readonly splitter: LineSplitter;
  private readonly ctx: PrefixContext;
  detector: EngineDetector;
  private tracker = new TracebackTracker();
  /** The launches read, less those handed to `settle` (their indices stay those of the whole file). */
  readonly launches: LaunchBuilder[] = [];
  /**
   * Launches handed off by `settle` and no longer kept: always the first ones of the file (they are offered
   * oldest first), so `launches` is the rest, in order. Checkpointed: a reader that keeps the launches it took
   * (the ledger) continues with only the launches still open, whatever their number before.
   */
  released = 0;
  /**
   * Offered the closed launches (once a new one opened after them), oldest first, until it refuses one: true
   * takes it away, for a reader that reports or records launches as they close so that memory does not grow
   * with their number. One refused (its report may still change) is offered again at the next opening.
   */
  settle: ((l: LaunchBuilder) => boolean) | null = null;
  current: LaunchBuilder | null = null;
  lastTs: number | null = null;
  private barBase = new Map<string, number>();
  private ended = false;
  truncatedLines = 0;
  /** Kept for `checkpoint`, which records the options its state depends on. */
  private readonly options: AnalyzerOptions;
  /** Unrecognised engine-looking lines, by shape: only with `explain` (rebuilt, never checkpointed). */
  explainer: ExplainCollector | null;
  /**
   * The file's first lines, kept while none of them reads as an engine's own from its first character and no
   * wrapper is known: once a gutter shows (gutter.ts, or the frame-anchored wrapper.ts), they are read again
   * with it peeled. Null once that is settled, for good.
   */
  private head: HeadLine[] | null = [];
  private headChars = 0;
  /** The year when the head began (read again from there). */
  private headYear = 0;
  /**
   * The file's lines read before any line said which engine wrote it (EngineDetector.best() null): uvicorn's
   * `INFO:     Started server process`, access lines, NCCL, tqdm bars, downloads, torch warnings are printed
   * alike by several engines, and while none has shown itself each is read with the rules of the engine that
   * comes first in the list, a guess (SGLang's: an access line before `fired up` is its warm-up request, where
   * for vLLM or trtllm-serve it is a request served). Until then they are read by what every engine whose rules
   * take them agrees on (`leastMatch`). Whenever a line's evidence changes the engine the detector holds best
   * before it locks (the first evidence; or a weak vote, a bare `[date time]` stamp, overtaken by another
   * engine's stronger one), the lines kept are read again from a fresh state as if that engine had been known
   * from the start (its rules tried first), so what those lines claim is that engine's reading, not the guess's.
   * Null once the detector locks, once the prefix outgrows PREFIX_LINES/PREFIX_CHARS, or once a launch was
   * handed off.
   */
  private prefix: {
    lines: Array<{ text: string; no: number; offset: number }>;
    chars: number;
    year: number;
  } | null;
  /** Reading the prefix again: the detector counted its lines' votes, and Ollama's lines, once already. */
  private rereading = false;

  constructor(opts: AnalyzerOptions = {}) {
    this.options = opts;
    this.explainer = opts.explain ? new ExplainCollector() : null;
    this.ctx = { year: opts.year ?? 2026, wrap: null, wrapSeen: null };
    this.headYear = this.ctx.year;
    this.detector = new EngineDetector(opts.engine);
    this.prefix = opts.engine ? null : { lines: [], chars: 0, year: this.ctx.year };
    const bulk =
      opts.bulk === false
        ? null
        : new BulkHook(
            () => this.steady(),
            (run) => this.applyRun(run),
            () => this.bulkScanner(),
            (buf, start, end) => this.genericScanner(buf, start, end),
          );
    this.splitter = new LineSplitter(this.onRaw, opts.maxLine ?? DEFAULT_MAX_LINE, bulk);
  }

  get bytes(): number {
    return this.splitter.bytes;
  }

  get lineCount(): number {
    return this.splitter.lines;
  }

  push(chunk: Uint8Array): void {
    if (this.ended) throw new Error('LogAnalyzer: push after end');
    this.splitter.push(chunk);
  }

  /**
   * A buffer to read the next chunk into (then `push` it, or a prefix of it), inside the bulk reader's
   * memory, which then reads it without copying it; null when there is no bulk reader. Good until the next call.
   */
  inputBuffer(len: number): Buffer | null {
    return this.splitter.inputBuffer(len);
  }

  end(): AnalysisReport {
    if (!this.ended) {
      this.splitter.end();
      this.flushHeld();
      this.tracker.reset();
      this.takeFramePhase(this.current);
      this.ended = true;
    }
    return this.report();
  }

  /**
   * The whole state as bytes, to continue later with `LogAnalyzer.restore` as if the bytes pushed so far
   * had been pushed into the restored analyzer. Only at a line boundary: push up to a newline first.
   */
  checkpoint(): Uint8Array {
    if (this.ended) throw new Error('LogAnalyzer.checkpoint: after end');
    if (this.splitter.midLine) throw new Error('LogAnalyzer.checkpoint: inside a line (push to a newline)');
    return encodeCheckpoint(this, this.options);
  }

  /** An analyzer that continues from a checkpoint; throws a CheckpointError when it cannot (read afresh). */
  static restore(data: Uint8Array, opts: AnalyzerOptions = {}): LogAnalyzer {
    const a = new LogAnalyzer(opts);
    decodeCheckpoint(data, a, opts);
    return a;
  }

  /** The report so far; callable at any time (the live watcher reads it between chunks). */
  report(): AnalysisReport {
    return buildReport(this);
  }

  engine(): EngineId | null {
    return this.detector.reported();
  }

  get year(): number {
    return this.ctx.year;
  }

  set year(y: number) {
    this.ctx.year = y;
  }

  /** The wrapper learned from the file (a shape, a `=literal` or a named number column), or null. */
  get wrapper(): string | null {
    return this.ctx.wrap ?? null;
  }

  private onRaw: RawLineSink = (buf, s, e, no, offset, truncated) => {
    if (truncated) this.truncatedLines++;
    if (binaryLine(buf, s, e)) {
      this.flushHeld();
      this.prefix = null;
      // Bytes no logger writes (a core dump, random data cat'ed into the log): no rule can read them; the
      // launch they fall in still reaches this far.
      this.current?.touch(no, offset, null);
      return;
    }
    let text = decodeLine(buf, s, e);
    const cri = criPiece(text);
    // this piece is as long as the wrap column: the next line may go on with it
    const cut = !truncated && cri === null && this.hardWrap.see(text.length) && !text.includes('\r');
    // a piece cut mid-word inside a call, before any wrap column has shown itself (a paste of one long line)
    const inCall = !cut && !truncated && cri === null && cutInCall(text) && !text.includes('\r');
    const held = this.held;
    if (held !== null) {
      this.held = null;
      if (held.cri !== undefined) {
        // a runtime's part: the next record of its stream carries the rest (a record of the other stream,
        // or a line that is not one, ends it as the runtime left it)
        if (
          cri !== null &&
          cri.stream === held.cri &&
          held.text.length < (this.options.maxLine ?? DEFAULT_MAX_LINE)
        ) {
          text = held.text + text.slice(cri.start);
          no = held.no;
          offset = held.offset;
          truncated ||= held.truncated === true;
        } else this.readPhysical(held.text, held.no, held.offset, held.truncated === true);
      } else if (
        !truncated &&
        continuesWrap(text, held.text, this.ctx) &&
        (held.call !== true || closesCall(text))
      ) {
        text = held.text + text;
        no = held.no;
        offset = held.offset;
      } else this.readPhysical(held.text, held.no, held.offset, false);
    }
    if (cut) {
      this.held = { text, no, offset };
      return;
    }
    if (inCall) {
      this.held = { text, no, offset, call: true };
      return;
    }
    if (cri?.partial) {
      this.held = { text, no, offset, cri: cri.stream, truncated };
      return;
    }
    this.readPhysical(text, no, offset, truncated);
  };

  /**
   * A paste hard-wrapped at a column (a terminal's copy, an issue box): its long lines come in pieces of exactly
   * that many characters. Once the longest length seen has come three times, a line of that length is held until
   * the next says whether it goes on (not framed, not indented, no bar, no traceback header: see continuesWrap).
   */
  private readonly hardWrap = new HardWrap();
  /**
   * A line held for the next: a hard-wrapped piece (`call`: one cut inside a call, cutInCall, which only a line
   * that closes the call goes on), or a container runtime's part (`cri`: its stream).
   */
  private held: {
    text: string;
    no: number;
    offset: number;
    cri?: string;
    truncated?: boolean;
    call?: boolean;
  } | null = null;

  private flushHeld(): void {
    const h = this.held;
    if (h === null) return;
    this.held = null;
    this.readPhysical(h.text, h.no, h.offset, h.truncated === true);
  }

  private readPhysical(text: string, no: number, offset: number, truncated: boolean): void {
    for (const seg of logicalSegments(text))
      this.onText(truncated ? `${seg} …[line truncated]` : seg, no, offset);
  }

  private onText(text: string, no: number, offset: number): void {
    // Evidence keeps lines verbatim, so a line that may carry a credential is scrubbed before anything keeps it.
    if (mayHoldSecret(text)) text = redactText(text);
    const head = this.head;
    if (head === null) {
      this.readLine(text, no, offset);
      return;
    }
    if (
      this.ctx.wrap ||
      this.released > 0 ||
      head.length >= HEAD_LINES ||
      this.headChars + text.length > HEAD_CHARS ||
      startsReadable(text, this.ctx.year)
    ) {
      this.head = null;
      this.headSeen.clear();
      this.readLine(text, no, offset);
      return;
    }
    if (head.length === 0) this.headYear = this.ctx.year;
    // A learned wrapper is peeled after the known ones: looked for there.
    head.push({ text, no, offset, rest: withoutKnownWrappers(text, this.ctx.year) });
    this.headChars += text.length;
    this.readLine(text, no, offset);
    if (!this.ctx.wrap) {
      const year = this.ctx.year;
      const seen = this.headSeen;
      const readable = (t: string) => {
        let r = seen.get(t);
        if (r === undefined) {
          // Every engine's rules, whatever the detector holds so far: the answer is the text's alone.
          r = startsReadable(t, year) || this.match(t, ENGINE_MODULES) !== null;
          seen.set(t, r);
        }
        return r;
      };
      // Where the known wrappers end; else a line-number column from the line's start, which a known wrapper
      // may have taken on some lines only (`grep -n`'s `12:  import x` read as srun's `12: `).
      this.ctx.wrap =
        commonGutter(
          head.map((l) => l.rest),
          readable,
        ) ??
        commonGutter(
          head.map((l) => l.text),
          readable,
          true,
        );
    }
    if (this.ctx.wrap) this.readHeadAgain();
  }

  /** What `commonGutter` found readable in the head's lines, by text (a cache). */
  private readonly headSeen = new Map<string, boolean>();

  /** Reads the head's lines again from a fresh state, under the wrapper just learned. */
  private readHeadAgain(): void {
    const head = this.head!;
    this.head = null;
    this.headChars = 0;
    this.headSeen.clear();
    if (this.released > 0) return;
    this.detector = new EngineDetector(this.options.engine);
    this.resetReading(this.headYear);
    this.prefix = this.options.engine ? null : { lines: [], chars: 0, year: this.headYear };
    for (const l of head) this.readLine(l.text, l.no, l.offset);
  }

  /** The state lines build, emptied for lines to be read again from the year they started in (the detector stays). */
  private resetReading(year: number): void {
    this.tracker = new TracebackTracker();
    if (this.explainer) this.explainer = new ExplainCollector();
    this.launches.length = 0;
    this.current = null;
    this.engineServices.clear();
    this.lastTs = null;
    this.barBase.clear();
    this.block = null;
    this.ctx.year = year;
    this.ctx.wrapSeen = null;
  }

  /**
   * Reads the prefix (see `prefix`) again from a fresh state, the detector kept: it now holds the votes of the
   * line that made its engine the best, whose rules are then tried first.
   */
  private readPrefixAgain(p: NonNullable<LogAnalyzer['prefix']>): void {
    this.resetReading(p.year);
    this.rereading = true;
    try {
      for (const l of p.lines) this.readLine(l.text, l.no, l.offset);
    } finally {
      this.rereading = false;
    }
  }

  /**
   * Services of a multiplexed log (compose, kubectl --prefix: `LogLine.service`) that printed an engine's own
   * line. Once one has, another service's lines are another program's (a web UI, a proxy, a client in the same
   * compose project): its uvicorn start, its tracebacks say nothing of the server, and are skipped until that
   * service prints an engine line itself.
   */
  private readonly engineServices = new Set<string>();
  /** py-spy stack dumps' frames (pyspy.ts). */
  private readonly pyspy = new PySpyReader();

  private otherService(line: LogLine): boolean {
    const s = line.service;
    if (s == null || this.engineServices.size === 0 || this.engineServices.has(s)) return false;
    return !engineOwn(line, this.match(line.msg));
  }

  private readLine(text: string, no: number, offset: number): void {
    let line = parseLine(text, no, offset, this.ctx);
    if (this.otherService(line)) {
      this.explainer?.observe(line, false);
      return;
    }
    let votes: Partial<Record<EngineId, number>> | null | undefined;
    const p = this.prefix;
    if (p !== null && !this.rereading) {
      if (this.released > 0 || this.detector.locked !== null) this.prefix = null;
      else {
        const before = this.detector.best();
        const wrapped = this.detector.wrapped;
        votes = this.detector.observe(line);
        // the lines kept are read again once the engine changes, or once the log shows itself another program's
        // (its own rules then come first: generic.ts)
        const again =
          (votes !== null && this.detector.best() !== before) || this.detector.wrapped !== wrapped;
        if (again && p.lines.length > 0) {
          this.readPrefixAgain(p);
          line = parseLine(text, no, offset, this.ctx);
        }
        if (votes !== null && this.detector.locked !== null) this.prefix = null;
        if (this.prefix === null) {
          // the detector locked: the lines kept are read as its engine's already
        } else if (p.lines.length >= PREFIX_LINES || p.chars + text.length > PREFIX_CHARS) this.prefix = null;
        else {
          p.lines.push({ text, no, offset });
          p.chars += text.length;
        }
      }
    }
    if (this.block !== null) this.continueBlock(line);
    // Reading the prefix again, a line's votes are its own again (the detector counted them once already).
    if (votes === undefined) votes = this.rereading ? votesOf(line) : this.detector.observe(line);
    const ts = line.ts ?? line.rel;
    if (ts !== null) this.lastTs = ts;
    const hit = this.detector.best() === null ? this.leastMatch(line.msg) : this.match(line.msg);
    if (line.service != null && engineOwn(line, hit)) this.engineServices.add(line.service);
    // A launch's start line where an open traceback's frame awaits its source line was written into that
    // traceback by the other stream (a banner on stdout amid stderr's traceback, glued to the code line it
    // displaced): the traceback goes on past it, in the same launch.
    const interleaved = hit?.sig.kind === 'launch' && this.tracker.awaitsCode;
    const exc = interleaved ? null : this.tracker.feed(line);
    // A line the traceback reader took (header, frame, code, exception) is recognised too.
    this.explainer?.observe(line, hit !== null || exc !== null || this.tracker.openStart !== null);
    this.segment(
      line,
      interleaved ? null : hit,
      (exc !== null && !exc.benign) || this.tracker.opened === line.no,
    );
    const launch = this.current;
    if (launch === null) return;
    if (votes !== null) launch.vote(votes);
    // a caught exception's text ends where the logger's next line starts
    if (
      launch.caughtFrom !== null &&
      line.framed &&
      line.no > launch.caughtFrom &&
      (launch.caughtPrefix === null || loggerPrefix(line) !== launch.caughtPrefix)
    )
      launch.caughtFrom = null;
    if (line.rel !== null && line.ts === null && launch.startTs === null) launch.relativeTime = true;
    // A line Ray forwarded from another node (`ip=`): its node's own reading too (launch.ts RayNodes).
    if (launch.ray !== null || line.ip) rayLine(launch, line, ts);
    // After a crash or a stop, a line no failure, consequence or stop rule reads, outside a traceback, tells
    // nothing more of the launch: where its own lines stopped is kept, in case another launch starts.
    const told =
      !launch.ended ||
      exc !== null ||
      this.tracker.openStart !== null ||
      this.tracker.opened === no ||
      (hit !== null && OWN_AFTER_END.has(hit.sig.kind));
    if (told) launch.ownEnd = null;
    else launch.ownEnd ??= { line: launch.endLine, offset: launch.endOffset, ts: launch.lastTs };
    const prevTs = launch.lastTs;
    launch.touch(no, offset, ts);
    if (line.tags) launch.ranks.add(line.tags);
    if (line.pid !== null) launch.pids.add(line.pid);
    if (hit) this.apply(launch, line, hit);
    else {
      // A bar times itself (its elapsed field): the catalog's tqdm template must not re-mark it with a stale clock.
      if (!(line.msg.includes('%') && this.progressBar(launch, line))) this.fromCatalog(launch, line);
    }
    const spy = this.pyspy.feed(line.msg, line.no, launch.engine ?? this.detector.best());
    if (spy !== null) this.framePhase(launch, spy.phase, line);
    if (this.tracker.opened === line.no && launch.shutdown === null) {
      // A traceback that the file cuts before its exception line still says an exception was hit.
      launch.addFailure({
        ...lineFailure(
          line,
          collectiveTimeoutGap(prevTs, ts) ? 'timeout' : (launch.warnedClass(line.no) ?? 'python_exception'),
          1.8,
          ts,
          launch,
        ),
        startLine: line.no,
        startText: line.text,
      });
    }
    const raise = this.tracker.lastRaise;
    if (raise && !exc && this.tracker.openStart !== null) {
      const text = raise.text.replace(/^[rfb]*["']/i, '');
      // `raise ValueError(` with its message on the lines the file cut: the type alone says little, the raise
      // site's step says what it raises (frames/cut-class.ts; vLLM's kv_cache_utils.py
      // _check_enough_kv_cache_memory opens its message on the line after `raise ValueError(`)
      const cls =
        (text.trim() === '' ? this.tracker.cutClass : null) ??
        classifyRaise(launch.engine ?? this.detector.best(), raise.type, text, exceptionRules);
      if (cls)
        launch.refineFailure(
          this.tracker.openStart,
          cls,
          `${raise.type}: ${raise.text.replace(/[)"']+$/, '')}`,
        );
    } else if (this.tracker.cutClass !== null && !exc && this.tracker.openStart !== null)
      // no raise shown: the innermost frame's step names what it raises (frames/cut-class.ts)
      launch.refineClass(this.tracker.openStart, this.tracker.cutClass);
    if (this.tracker.scopedStart !== null) launch.dropFailure(this.tracker.scopedStart);
    this.takeFramePhase(launch);
    if (exc) {
      if (exc.framePhase && !(exc.frameUnplaced === true && launch.phase !== null))
        this.framePhase(launch, exc.framePhase, line);
      const scoped =
        exc.requestScoped && launch.phase !== null && phaseRank(launch.phase) >= phaseRank('ready');
      if (exc.benign || scoped || exc.client || exc.httpAnswer) {
        launch.dropFailure(exc.startLine);
        if (exc.type === 'KeyboardInterrupt' && !scoped && !exc.client && launch.candidates.length === 0)
          // Ctrl-C (SIGINT) in the server's main process: the launch was stopped, not crashed.
          launch.shutdown ??= { line: exc.line, text: exc.text, ts: exc.ts ?? this.lastTs };
      } else if (launch.shutdown === null) {
        const engine = launch.engine ?? this.detector.best();
        const rules = engine === null ? undefined : engineModule(engine).raises;
        if (exc.startLine !== null && exc.startLine !== exc.line) launch.dropHeader(exc.startLine);
        launch.addFailure(launch.fromException(exc, launch.phase, engine, rules));
      }
    }
    const wrapped = this.tracker.wrapped;
    if (wrapped !== null) {
      // pydantic's `Value error, …` line: the wrapped error names the class (a config's ValueError may be an
      // unsupported model or too little memory, not only a bad argument).
      const engine = launch.engine ?? this.detector.best();
      const cls =
        classifyRaise(engine, wrapped.type, wrapped.message, exceptionRules) ??
        classifyExceptionType(wrapped.ev.type) ??
        'config_error';
      launch.reclassify(wrapped.ev.line, cls, `${wrapped.ev.type}: ${wrapped.message}`);
    }
    const cont = this.tracker.continued;
    // A continuation of the exception's message names the cause (ptxas' `Value 'sm_121a' is not defined for option
    // 'gpu-name'` under Triton's PTXASError): its class, if the exception's own is generic.
    if (cont !== null) launch.continueFailure(cont.ev, cont.cls, cont.text);
    if (launch.caughtFrom !== null) launch.recoverFrom(launch.caughtFrom);
  }

  private match(msg: string, engines: readonly EngineModule[] = this.detector.candidates()): Match | null {
    // Another program's log (Ollama, LMDeploy, …): its own lines first, then the engine it runs.
    if (this.detector.wrapped) {
      const g = this.matchGeneric(msg, engines[0]!);
      if (g !== null) return g;
    }
    for (const engine of engines) {
      const hit = firstSignature(engine.signatures, msg);
      if (hit !== null) return { engine, sig: hit.sig, m: hit.m };
    }
    return this.matchCommon(msg, engines[0]!);
  }

  /**
   * The generic reader's rules (generic.ts): any server's listening, request, failure and stop lines, for a log
   * no engine module reads.
   */
  private matchGeneric(msg: string, engine: EngineModule): Match | null {
    const hit = firstSignature(genericSignatures, msg);
    return hit === null ? null : { engine, sig: hit.sig, m: hit.m };
  }

  /** The rules every engine shares (common.ts), read for `engine`, once no engine's own rule took the line. */
  private matchCommon(msg: string, engine: EngineModule): Match | null {
    const hit = firstSignature(commonSignatures, msg);
    return hit === null ? null : { engine, sig: hit.sig, m: hit.m };
  }

  /**
   * The rule to read a line by while no line has shown which engine wrote it (EngineDetector.best() null): of the
   * engines whose rules take the line, the one whose rule claims least of the launch. Lines several engines print
   * alike mean different things to each: uvicorn's `Application startup complete` is vLLM's readiness (serve_http
   * starts uvicorn once the engine is up), SGLang's warm-up (`fired up` comes after its warm-up request), and for
   * trtllm-serve behind its readiness gate only the port listening (`Signature.after`); an access line answered 2xx
   * is a request served for vLLM and trtllm-serve, SGLang's warm-up request before `fired up`. What every one of
   * them agrees on is the least of their claims. Such a line says nothing of the engine (`shared`: it counts as
   * no engine line, so the reading's confidence says so).
   */
  private leastMatch(msg: string): Match | null {
    if (this.detector.wrapped) {
      const g = this.matchGeneric(msg, ENGINE_MODULES[0]!);
      if (g !== null) return g;
    }
    let least: Match | null = null;
    let leastClaim = 0;
    let takers = 0;
    for (const engine of ENGINE_MODULES) {
      const hit = firstSignature(engine.signatures, msg);
      if (hit === null) continue;
      takers++;
      const c = this.claim(hit.sig);
      if (least === null || c < leastClaim) {
        least = { engine, sig: hit.sig, m: hit.m };
        leastClaim = c;
      }
    }
    if (least !== null) {
      if (takers > 1) least.shared = true;
      return least;
    }
    // no engine's own rule took it (each was tried above): only the shared ones are left, then any server's
    return this.matchCommon(msg, ENGINE_MODULES[0]!) ?? this.matchGeneric(msg, ENGINE_MODULES[0]!);
  }

  /**
   * How much a rule claims of the current launch, as `apply` would read it: its kind (KIND_CLAIM), then the phase
   * it would mark (a line whose rule waits for a phase not reached, `after`, only shows the port listening).
   */
  private claim(sig: Signature): number {
    const launch = this.current;
    const phase = launch?.phase ?? null;
    let marks: Phase | null = sig.phase ?? null;
    if (sig.after !== undefined && (phase === null || phaseRank(phase) < phaseRank(sig.after))) marks = null;
    else if (sig.kind === 'ready') marks = 'ready';
    else if (sig.kind === 'serving') marks = servingUp(launch) ? 'serving' : (sig.phase ?? 'serving');
    return KIND_CLAIM[sig.kind] * (PHASES.length + 1) + (marks === null ? 0 : phaseRank(marks) + 1);
  }

  /** A configuration printed over several unframed lines, being gathered. */
  private block: {
    lines: string[];
    parse: (text: string) => Record<string, unknown> | null;
    source: string;
    line: number;
  } | null = null;

  private continueBlock(line: LogLine): void {
    const b = this.block!;
    const done = line.framed || b.lines.length > 400 || /^\s*\}\s*$/.test(line.msg);
    if (!line.framed) b.lines.push(line.msg);
    if (!done) return;
    this.block = null;
    const cfg = b.parse(b.lines.join('\n'));
    if (cfg && this.current) {
      Object.assign(this.current.config, cfg);
      this.current.configSources.push({ source: b.source, line: b.line });
    }
  }

  /** Decides whether this line opens a new launch. */
  private segment(line: LogLine, hit: Match | null, failed: boolean): void {
    const cur = this.current;
    if (cur === null) {
      // Lines before anything recognisable (a shell prompt, a banner of another tool) open no launch. A line of a
      // serving program that names it (engines/generic.ts PROGRAMS) is that server's, though no rule places it: a
      // log with a server's lines has a launch.
      if (
        hit === null &&
        !failed &&
        this.detector.best() === null &&
        this.detector.program === null &&
        !(line.msg.includes('%') && parseBar(line.msg))
      )
        return;
      this.open(line, hit?.sig.kind === 'launch');
      if (hit?.sig.kind === 'launch') this.current!.anchors.add(anchorKey(hit.sig.id, line.tags));
      return;
    }
    if (hit?.sig.kind === 'launch') {
      const settled = (cur.progressed && !hostOnly(cur)) || cur.ended || cur.ready !== null;
      const anchor = anchorKey(hit.sig.id, line.tags);
      // Another program's server (detector.wrapped) is launched by its own lines only: the engine's start lines
      // in its log are the runners it starts for its models, within the one server launch.
      const runner = this.detector.wrapped && !COMMON.has(hit.sig);
      const sameProcesses = hit.sig.perProcess === true && !settled;
      if (
        !runner &&
        !sameProcesses &&
        (cur.anchors.has(anchor) || settled || (hit.sig.strong && cur.samples > 0))
      ) {
        this.open(line, true);
      }
      this.current!.anchors.add(anchor);
      if (!this.current!.progressed) this.current!.hasStart = true;
      return;
    }
    // A restart whose header was not captured: early startup lines after the server was up or gone.
    if (
      hit?.sig.kind === 'phase' &&
      !hit.sig.weak &&
      hit.sig.phase &&
      phaseRank(hit.sig.phase) <= phaseRank('loading_weights')
    ) {
      const up = cur.phase !== null && phaseRank(cur.phase) >= phaseRank('ready');
      if (up && cur.readyAtStart && cur.phase === 'ready') {
        // the listening line the fragment began with was the port opening before the model loaded (llamafile
        // and llama-server builds of 2024-01 listen first): the same launch, still starting
        cur.listenedFirst();
        return;
      }
      // In another program's log (Ollama, LocalAI, …) the engine's start-up lines after the server is up are the
      // runner it starts for a model (Ollama's scheduler, on the first request): the same server, not a restart.
      // A fragment that begins at a stop (a worker's `WorkerProc was terminated` on Ctrl-C) shows nothing of the
      // launch before it: the start-up lines after it are its other processes, still printing while they stop.
      const stopFirst = cur.shutdown !== null && cur.phase === null && cur.shutdown.line === cur.startLine;
      if ((up && !this.detector.wrapped) || (cur.shutdown !== null && !stopFirst)) this.open(line, false);
    }
  }

  private open(line: LogLine, hasStart: boolean): void {
    const l = new LaunchBuilder(this.released + this.launches.length, line.no, line.offset, hasStart);
    l.startText = line.text.slice(0, 256);
    const prev = this.current;
    if (prev !== null) {
      prev.endAtOwnLine();
      this.barBase.clear();
      this.tracker.reset();
      this.takeFramePhase(prev);
      // nothing adds to a closed launch: it can be reported now, in file order
      while (this.settle !== null && this.launches.length > 0 && this.settle(this.launches[0]!)) {
        this.launches.shift();
        this.released++;
      }
    }
    this.launches.push(l);
    this.current = l;
  }

  private apply(launch: LaunchBuilder, line: LogLine, hit: Match): void {
    const { sig, m, engine } = hit;
    const ts = line.ts ?? line.rel ?? this.lastTs;
    // Once the detector is locked, only the locked engine's rules are tried: the rule's engine is the launch's.
    // Before, a rule matching says nothing of the engine (another engine's rule may match the same shape first).
    if (this.detector.locked !== null) launch.engine ??= engine.id;
    if (!COMMON.has(sig) && hit.shared !== true) launch.engineLines++;
    launch.readyAtStart = false;
    if (sig.version) launch.version ??= sig.version(m);
    if (sig.config && /Args \{$/.test(line.msg)) {
      // TGI prints its arguments as a multi-line Debug dump: gather it, parse it at the closing brace.
      this.block = { lines: [line.msg], parse: sig.config, source: sig.id, line: line.no };
    } else if (sig.config) {
      const cfg = sig.config(line.msg);
      if (cfg) {
        Object.assign(launch.config, cfg);
        launch.configSources.push({ source: sig.id, line: line.no });
      }
    }
    if (
      sig.after !== undefined &&
      (launch.phase === null
        ? sig.afterKnown !== true
        : phaseRankIn(launch.engine, launch.phase) < phaseRankIn(launch.engine, sig.after))
    ) {
      // the HTTP server is up while the model is not: the port listens, the server is not ready
      launch.listening ??= { line: line.no, text: line.text };
      return;
    }
    if (
      sig.from !== undefined &&
      launch.phase !== null &&
      phaseRankIn(launch.engine, launch.phase) < phaseRankIn(launch.engine, sig.from)
    )
      return;
    switch (sig.kind) {
      case 'launch':
      case 'phase':
        if (sig.restarts && launch.shutdown === null && (launch.up() || launch.candidates.length > 0)) {
          // The server starts another runner after one died: the server lived on (Ollama's scheduler loads
          // the model again for the next request), so that runner's failure is behind it
          launch.recover();
          launch.phase = null;
        }
        if (sig.phase === 'weights_loaded' && otherRankLoading(launch)) {
          // one rank's weights are in while a shard bar is still short of its total: another rank (the one
          // printing the bar) is still loading, and the launch with it (ranks load at their own pace) until
          // the bar completes
          launch.loadedWhileBar = sig.id;
        } else if (sig.phase) launch.mark(sig.phase, line.no, ts, line.text, sig.id);
        if (line.msg.includes('%')) this.progressBar(launch, line);
        if (sig.readyOnceListening && launch.listening !== null) this.ready(launch, line, ts, sig.id);
        return;
      case 'ready':
        // (a listening line read as ready because nothing came before it: see LaunchBuilder.readyAtStart)
        launch.readyAtStart = sig.after !== undefined && launch.phase === null;
        this.ready(launch, line, ts, sig.id);
        return;
      case 'serving': {
        const s = engine.sample?.(sig, m) ?? null;
        const sample: ServingSample | null = s ? { ...s, ts, line: line.no } : null;
        // An access line's status: its signature's `status` group, else the quoted request's (uvicorn, aiohttp)
        const status = m.groups?.status;
        const ok =
          sig.id === 'access'
            ? status !== undefined
              ? status[0] === '2'
              : /" 2\d\d\b/.test(line.msg)
            : true;
        this.serving(launch, sig, sample, line.no, ts, ok, () => line.text);
        return;
      }
      case 'failure': {
        if (launch.shutdown !== null) {
          if (!sig.afterShutdown) return;
          launch.shutdown = null;
        }
        if (sig.phase) launch.mark(sig.phase, line.no, ts, line.text, `${FAILURE_RULE}${sig.id}`);
        else if (sig.phaseIfUnplaced && (launch.phase === null || launch.candidates.length === 0))
          launch.mark(sig.phaseIfUnplaced, line.no, ts, line.text);
        const cls =
          (sig.raised && m[1] !== undefined ? classifyRaise(engine.id, '*', m[1], () => null) : null) ??
          sig.failure ??
          classifyFailureText(m[1] ?? line.msg) ??
          classifyFailureText(line.msg) ??
          // (a C++ exception's qualified type, `tensorrt_llm::common::TllmException: …`, is not a Python one: the
          // engine's native check, classed `other` unless its words name a cause)
          (/(?<![\w:])\w+(?:Error|Exception):/.test(line.msg) || PYTHON_MESSAGE.test(m[1] ?? line.msg)
            ? 'python_exception'
            : 'other');
        const strength = sig.failure || (cls !== 'python_exception' && cls !== 'other') ? 3 : 1.5;
        launch.addFailure({
          ...lineFailure(line, cls, strength, ts, launch),
          exceptionType: /^([\w.]+(?:Error|Exception)):/.exec(line.msg)?.[1] ?? null,
        });
        return;
      }
      case 'consequence': {
        if (launch.shutdown !== null) return;
        launch.addConsequence({ line: line.no, text: line.text });
        // (a consequence only a running part prints shows that phase reached: vLLM's engine-core monitor)
        if (sig.phase) launch.mark(sig.phase, line.no, ts, line.text, sig.id);
        // (a consequence whose words read as a cause, `failed to load model`, names its class: `other`)
        const cls = sig.failure ?? classifyFailureText(line.msg) ?? 'other';
        launch.addFailure(lineFailure(line, cls, 1, ts, launch));
        return;
      }
      case 'shutdown': {
        const code = sig.id === 'worker_end' ? Number(m[1]) : 0;
        if (code !== 0 && launch.shutdown === null) {
          launch.addConsequence({ line: line.no, text: line.text });
          return;
        }
        if (sig.beforeReady && launch.shutdown === null && !launch.up()) {
          // The processes are gone before the server was up and nothing said why: killed from outside.
          launch.addConsequence({ line: line.no, text: line.text });
          launch.addFailure(lineFailure(line, sig.beforeReady, 1, ts, launch));
          return;
        }
        launch.shutdown ??= { line: line.no, text: line.text, ts };
        // a stop only a server that was up prints (vLLM's serve_http): how far the launch had got
        if (sig.phase) launch.mark(sig.phase, line.no, ts, line.text, sig.id);
        return;
      }
      case 'degraded':
        // a degraded line an engine prints only from a running part (an HTTP handler) shows that phase reached
        if (sig.phase) launch.mark(sig.phase, line.no, ts, line.text, sig.id);
        if (sig.recovers) launch.recover();
        if (sig.catches) {
          launch.caughtFrom = line.no;
          launch.caughtPrefix = loggerPrefix(line);
        }
        if (sig.failure) launch.warned = { line: line.no, cls: sig.failure };
        if (launch.degraded.length < 20) launch.degraded.push({ line: line.no, text: line.text });
        return;
      case 'stall_hint':
        launch.quietHints += sig.stuck === true ? 2 : 1;
        if (launch.stallHints.length < 20) launch.stallHints.push({ line: line.no, text: line.text });
        return;
      default:
        return;
    }
  }

  private ready(launch: LaunchBuilder, line: LogLine, ts: number | null, rule: string): void {
    launch.mark('ready', line.no, ts, line.text, rule);
    launch.ready ??= { line: line.no, text: line.text, ts };
    launch.recover();
  }

  /**
   * A line no hand-written signature knows, found among the engine's own log calls (engines/catalog-match.ts).
   * It only moves a launch forward through the startup phases: it never opens a launch (segment() has run),
   * never places it back (a late args-phase warning), and never claims ready/serving/shutdown, which the
   * hand-written milestones decide. Lines that can come in any phase (`phase_scope: any`) place nothing. An
   * error the engine prints when a child failed is a low-strength failure: the cause is printed elsewhere.
   */
  private fromCatalog(launch: LaunchBuilder, line: LogLine): void {
    const engine = launch.engine ?? this.detector.best();
    let hit: CatalogLine | null = null;
    if (engine !== null) hit = catalogLine(engine, line.msg);
    else for (const e of CATALOG_ENGINES) if ((hit = catalogLine(e, line.msg))) break;
    if (hit === null || launch.shutdown !== null) return;
    const ts = line.ts ?? line.rel ?? this.lastTs;
    if (hit.crash && CRASH_LEVELS.has(hit.level)) {
      launch.addConsequence({ line: line.no, text: line.text });
      launch.addFailure(lineFailure(line, classifyFailureText(line.msg) ?? 'other', 1, ts, launch));
      return;
    }
    if (hit.scope === 'any' || !isStartupPhase(hit.phase)) return;
    if (
      launch.phase === null ||
      phaseRankIn(launch.engine, hit.phase) >= phaseRankIn(launch.engine, launch.phase)
    )
      launch.mark(hit.phase, line.no, ts, line.text, hit.host ? HOST_CATALOG_RULE : CATALOG_RULE);
    // A node behind the launch still moves on its own.
    else launch.markNode(hit.phase, line.no, ts, line.text, hit.host ? HOST_CATALOG_RULE : CATALOG_RULE);
  }

  /** A phase the traceback tracker has shown (a cut traceback's frames, a request handler), taken once. */
  private takeFramePhase(launch: LaunchBuilder | null): void {
    const p = this.tracker.pendingPhase;
    if (p === null) return;
    this.tracker.pendingPhase = null;
    if (launch !== null && !(p.unplaced === true && launch.phase !== null))
      this.framePhase(launch, p.phase, p);
  }

  /** The frames of a traceback show how far the launch got, even when the file starts mid-traceback. */
  private framePhase(launch: LaunchBuilder, phase: Phase, line: Pick<LogLine, 'no' | 'ts' | 'text'>): void {
    if (phase === 'serving') {
      // A serving loop's frames before the ready line: init is over and the first batches are the warmup
      // (SGLang runs its warmup request through the scheduler's event loop: catalog README §3 note).
      // (a phase only the failure line itself named, with no startup line before it, is no startup shown)
      const early = launch.phase !== null && phaseRank(launch.phase) < phaseRank('warmup');
      const shown = !launch.marks.every((m) => m.rule?.startsWith(FAILURE_RULE));
      const before = early && shown;
      if (launch.phase === null || early)
        launch.mark(before ? 'warmup' : 'serving', line.no, line.ts ?? this.lastTs, line.text, FRAME_RULE);
      return;
    }
    if (launch.phase === null || phaseRankIn(launch.engine, phase) > phaseRankIn(launch.engine, launch.phase))
      launch.mark(phase, line.no, line.ts ?? this.lastTs, line.text, FRAME_RULE);
    else launch.markNode(phase, line.no, line.ts ?? this.lastTs, line.text, FRAME_RULE);
  }

  /** Shared by the general path and the byte-level fast path, so both give the same answer. */
  serving(
    launch: LaunchBuilder,
    sig: Signature,
    sample: ServingSample | null,
    no: number,
    ts: number | null,
    ok: boolean,
    text: () => string,
  ): void {
    const up = servingUp(launch);
    // A client's inference request answered before the ready line: SGLang's own warm-up request posts to
    // /generate or /encode (entrypoints/http_server.py _execute_server_warmup, the older _wait_and_warmup), never
    // to the OpenAI API, so a POST there answered is a user's request served
    // (tested only before the ready line: after it every access line is serving, and this is the hot path)
    const phase: Phase =
      up || (sig.id === 'access' && ok && CLIENT_POST.test(text())) ? 'serving' : (sig.phase ?? 'serving');
    // A refused or failed request shows the HTTP server is up, not that the model served anything.
    if (launch.phase === phase) {
      launch.lastProgressTs = ts ?? launch.lastProgressTs;
      launch.lastProgressLine = no;
    } else if (
      sig.id === 'access' &&
      launch.phase === 'ready' &&
      (PROBE.test(text()) || (!ok && /"(?:GET|HEAD) /.test(text())))
    ) {
      // After the ready line, a liveness or metrics probe answered shows the server up, not a model request
      // served; so does a GET refused (404 for a path the server lacks: a client probing an Ollama-style API),
      // since the inference endpoints are POSTs.
    } else if (sig.id === 'access' && launch.phase === null && ok && PROBE.test(text())) {
      // A fragment that starts at probes answered (a metrics scrape, a health check): the server is up and
      // answers, but no request was served in it: ready
      launch.mark('ready', no, ts, text, sig.id);
    } else if (sig.id === 'access' && launch.phase === null && !ok && CLIENT_POST.test(text())) {
      // A fragment that starts at clients' inference requests refused or failed (uvicorn's `"POST
      // /v1/completions HTTP/1.1" 500`): the OpenAI API took them, so the HTTP server is up, and none was
      // answered: ready (vLLM serves its API only once the engine is up, entrypoints/openai/api_server.py
      // build_async_engine_client before serve_http)
      launch.mark('ready', no, ts, text, sig.id);
    } else if (ok || sig.id !== 'access') launch.mark(phase, no, ts, text, sig.id);
    // (an access line answered 4xx/5xx before any request was served is a request refused or failed: the
    // server is up, no inference request was answered; serving needs one, or a batch line)
    if (sig.id === 'access') {
      launch.requests++;
      if (ok && up && launch.candidates.length) launch.recover();
    } else if (sig.completes && up && launch.candidates.length) launch.recover();
    launch.noteServing(sample);
    if (sample) launch.addSample(sample, text);
  }

  /** Reads a load or capture progress bar; false when the line is none. */
  private progressBar(launch: LaunchBuilder, line: LogLine): boolean {
    const bar = parseBar(line.msg);
    if (!bar) return false;
    const phase = barPhase(bar.desc);
    if (!phase) return false;
    let ts = line.ts ?? line.rel;
    if (ts === null) {
      // tqdm prints no timestamp: place the bar by its own elapsed time from where it was first seen.
      let base = this.barBase.get(bar.desc);
      if (base === undefined && this.lastTs !== null) {
        base = this.lastTs - (bar.elapsed ?? 0);
        this.barBase.set(bar.desc, base);
      }
      ts = base !== undefined && bar.elapsed !== null ? base + bar.elapsed : this.lastTs;
    }
    if (ts !== null && (launch.lastTs === null || ts > launch.lastTs)) launch.touch(line.no, line.offset, ts);
    launch.mark(phase, line.no, ts, line.text, 'progress-bar');
    launch.setProgress({ ...bar, line: line.no, text: line.text.slice(0, 512), ts, phase });
    const held = launch.loadedWhileBar;
    if (held !== null && phase === 'loading_weights' && bar.done >= bar.total) {
      launch.loadedWhileBar = null;
      launch.mark('weights_loaded', line.no, ts, line.text, held);
    } else if (phase === 'loading_weights' && bar.done >= bar.total) {
      // the engine's last word on its load, its own bar at its total (EngineModule.loadedAtBarEnd)
      const engine = launch.engine ?? this.detector.best();
      if (engine !== null && engineModule(engine).loadedAtBarEnd?.test(bar.desc) === true)
        launch.mark('weights_loaded', line.no, ts, line.text, 'progress-bar');
    }
    return true;
  }

  /**
   * Serving lines can be read in bulk only while an SGLang launch is steadily serving with no failure
   * pending: then each of them changes the launch in a way a `ServingRun` can sum up.
   */
  steady(): boolean {
    const l = this.current;
    return (
      l !== null &&
      this.held === null &&
      this.head === null &&
      l.phase === 'serving' &&
      l.candidates.length === 0 &&
      this.detector.locked?.id === 'sglang'
    );
  }

  private readonly scanners: Partial<Record<EngineId, LineScanner>> = {};
  private readonly scanEnv: ScanEnv = { year: 0, lastTs: null, maxLine: 0 };

  /**
   * The scanner for another engine's serving lines (scan.ts), under the same condition as `steady` for
   * SGLang's, and no wrapper learned (its lines are peeled otherwise) nor `explain` (it looks at every line).
   */
  bulkScanner(): { scanner: LineScanner; env: ScanEnv } | null {
    const l = this.current;
    const id = this.detector.locked?.id;
    if (
      l === null ||
      this.held !== null ||
      l.phase !== 'serving' ||
      l.candidates.length !== 0 ||
      l.engine === null ||
      id === undefined ||
      !(id in SCANNERS) ||
      this.ctx.wrap !== null ||
      this.head !== null ||
      this.explainer !== null ||
      this.block !== null ||
      this.tracker.openStart !== null
    )
      return null;
    const scanner = (this.scanners[id] ??= SCANNERS[id]!());
    const env = this.scanEnvNow();
    scanner.classify = this.classifyShape;
    scanner.marked = l.marked;
    scanner.launch = l;
    return { scanner, env };
  }

  /** The shape scanners' view of the reading now: its year, last stamp and longest line. */
  private scanEnvNow(): ScanEnv {
    const env = this.scanEnv;
    env.year = this.ctx.year;
    env.lastTs = this.lastTs;
    env.maxLine = this.options.maxLine ?? DEFAULT_MAX_LINE;
    return env;
  }

  private generic: GenericScanner | null = null;

  /**
   * The reader of lines by their shape (generic-scan.ts), for lines no engine's scanner takes: a log no engine
   * rule knows, another program's lines. Only where a line's reading depends on nothing it could skip: a launch
   * open, not ended, with no failure pending; no line held, no head or prefix kept to be read again, no wrapper
   * learned, no block gathered, the traceback reader quiet, the program's name no longer looked for, no Ray
   * nodes, no `explain`.
   */
  genericScanner(buf: Buffer, start: number, end: number): { scanner: LineScanner; env: ScanEnv } | null {
    const l = this.current;
    if (this.held !== null && !this.heldAlone(buf, start, end)) return null;
    if (
      l === null ||
      this.held !== null ||
      this.head !== null ||
      this.prefix !== null ||
      this.rereading ||
      this.ctx.wrap !== null ||
      this.explainer !== null ||
      this.block !== null ||
      l.ended ||
      l.ownEnd !== null ||
      l.candidates.length !== 0 ||
      l.caughtFrom !== null ||
      l.ray !== null ||
      !this.tracker.quiet
    )
      return null;
    const g = (this.generic ??= new GenericScanner());
    if (g.resting()) return null;
    g.setKey(this.genericKey(l));
    const env = this.scanEnvNow();
    g.classify = this.classifyGeneric;
    g.wrap = this.hardWrap;
    g.launch = l;
    return { scanner: g, env };
  }

  /**
   * A line held as a hard-wrapped paste's piece (onRaw) that the next line, at `start`, cannot go on (its first
   * word has the held line's shape: continuesWrap): read now, as onRaw would before that line. False when that
   * is not known.
   */
  private heldAlone(buf: Buffer, start: number, end: number): boolean {
    const h = this.held!;
    if (h.cri !== undefined || h.truncated === true) return false;
    const e = buf.indexOf(10, start);
    if (e < 0 || e >= end || e - start > (this.options.maxLine ?? DEFAULT_MAX_LINE)) return false;
    const fw = firstWordShape(buf, start, e);
    if (fw < 0) return false;
    if (/[^\x20-\x7e\t]/.test(h.text) || firstWordShapeOf(h.text) !== fw) return false;
    this.flushHeld();
    return true;
  }

  /** genericKey's parts the last time, and the key they made; and the array the next parts are put in. */
  private keyParts: unknown[] = [];
  private keyText = '';
  private keyNext: unknown[] = [];

  /**
   * What a line's reading by `classifyGeneric` depends on besides the line: its table holds while this does. Asked
   * at every line the generic reader is offered: the key is made again only when a part of it changed.
   */
  private genericKey(l: LaunchBuilder): string {
    const d = this.detector;
    // into the spare array (asked at every offer: no array made for a key that did not change)
    const parts = this.keyNext;
    parts.length = 0;
    parts.push(
      this.released + this.launches.length,
      l.startLine,
      l.phase,
      l.engine,
      d.locked?.id,
      d.best(),
      d.wrapped,
      d.foreign,
      d.programLines > 0,
      servingUp(l),
      l.readyAtStart,
      l.marked.size,
      l.listening !== null,
      l.shutdown !== null,
      l.loadedWhileBar,
      this.engineServices.size,
      this.ctx.year,
    );
    // the engines to try, in their order (the detector's ranking)
    for (const e of d.candidates()) parts.push(e.id);
    const last = this.keyParts;
    if (parts.length === last.length && parts.every((v, i) => v === last[i])) return this.keyText;
    this.keyNext = last;
    this.keyParts = parts;
    this.keyText = parts.join('|');
    return this.keyText;
  }

  /**
   * What the general path does with a line (readLine, in the state now), for the generic reader: `touch` when it
   * only moves the launch's end and time (no rule, no vote, no catalog template, no traceback, no bar, no
   * service or rank of its own), `serving`/`access` when it only counts a request of a serving launch; null
   * when more, or when that could depend on more than the line's shape. `ts` is the time the reader read from
   * the line's stamp: the general path must read the same. Changes nothing.
   */
  private classifyGeneric: ShapeClassifier = (buf, s, e, ts) => {
    const launch = this.current;
    if (launch === null) return null;
    const raw = decodeLine(buf, s, e);
    // the wrap column counts the decoded length; a runtime's record is joined with its parts
    if (raw.length !== decodedUnits(buf, s, e) || criPiece(raw) !== null) return null;
    const parsed = this.shapeLine(raw, true);
    if (parsed === null) return null;
    const { line, ctx } = parsed;
    if (ctx.wrap !== null || ctx.wrapSeen !== null || frameInside(line.msg)) return null;
    if (line.ts !== ts || line.rel !== null || line.tags !== null || line.pid !== null || line.ip)
      return null;
    if (ctx.year !== (ts === null ? this.ctx.year : new Date(ts * 1000).getUTCFullYear())) return null;
    if (line.msg.includes('%') || line.msg.startsWith('time=')) return null;
    // while the program's name is looked for (EngineDetector.nameProgram), a line that names none only counts
    if (this.detector.programLines > 0 && this.detector.namesProgram(line.text)) return null;
    if (this.detector.locked === null && votesOf(line) !== null) return null;
    const tracker = new TracebackTracker();
    if (tracker.feed(line) !== null || !tracker.quiet) return null;
    const hit = this.detector.best() === null ? this.leastMatch(line.msg) : this.match(line.msg);
    const svc = line.service;
    if (
      svc != null &&
      !this.engineServices.has(svc) &&
      (this.engineServices.size > 0 || engineOwn(line, hit))
    )
      return null;
    if (hit === null) {
      const engine = launch.engine ?? this.detector.best();
      if (engine !== null) {
        if (catalogLine(engine, line.msg) !== null) return null;
      } else for (const c of CATALOG_ENGINES) if (catalogLine(c, line.msg) !== null) return null;
      return { kind: 'touch', phase: null, engine: false };
    }
    const { sig } = hit;
    if (sig.kind !== 'serving' || sig.version || sig.config || sig.after !== undefined) return null;
    // a serving launch's request line: it moves the launch's progress and counts a request, nothing more
    if (launch.phase !== 'serving' || !servingUp(launch) || launch.readyAtStart) return null;
    if (this.detector.locked !== null && launch.engine === null) return null;
    if (hit.engine.sample?.(sig, hit.m)) return null;
    const engine = !COMMON.has(sig) && hit.shared !== true;
    return { kind: sig.id === 'access' ? 'access' : 'serving', phase: null, engine };
  };

  /**
   * Whether the rest of the file is read by this thread alone: the engine's serving lines are read by a shape
   * scanner, and a worker reading the second half (RangeScanner) cannot read them as this thread would
   * (`shapePlan` says when it can).
   */
  oneThread(): boolean {
    const id = this.detector.locked?.id;
    return id !== undefined && id in SCANNERS;
  }

  /** Whether a worker reading a part of the file (RangeScanner) can read any of it in bulk: SGLang's serving lines. */
  bulkInWorker(): boolean {
    return this.detector.locked?.id === 'sglang';
  }

  /** The launch the last `shapePlan` was made for: a worker's runs hold for it alone. */
  private planLaunch: LaunchBuilder | null = null;

  /**
   * What a worker needs to read the rest of the file's serving lines as this thread would, or null: the
   * launch is steadily serving, its engine's scanner has learned its table of shapes here, and the engine
   * prints no time on its serving lines (llama-server), so that what a line without a time gets (the last time
   * seen) is the same on both threads, checked again when the worker's runs are joined (`applySegments`).
   */
  shapePlan(): ShapePlan | null {
    const sc = this.bulkScanner();
    const id = this.detector.locked?.id;
    if (sc === null || id === undefined || !WORKER_SCANNED.has(id)) return null;
    const table = exportShapes(sc.scanner);
    if (table === null) return null;
    this.planLaunch = this.current;
    return { engine: id, table, year: sc.env.year, lastTs: sc.env.lastTs, maxLine: sc.env.maxLine };
  }

  /**
   * A line as the shape classifiers read it: one logical segment, parsed alone in the reading's year; null for
   * credential shapes whose masking depends on the digits and lines the traceback reader or Go's slog may take.
   * `generic`: for the generic reader, whose shapes a line with `--` or `://` may join when `flagSafe`.
   */
  private shapeLine(raw: string, generic = false): { line: LogLine; ctx: PrefixContext } | null {
    const segs = logicalSegments(raw);
    if (segs.length !== 1) return null;
    const text = segs[0]!;
    if (SHAPE_UNSAFE.test(text)) return null;
    if (FLAG_OR_URL.test(text) && !(generic && flagSafe(text))) return null;
    if (mayHoldSecret(text) && redactText(text) !== text) return null;
    const ctx: PrefixContext = { year: this.ctx.year, wrap: null, wrapSeen: null };
    return { line: parseLine(text, 1, 0, ctx), ctx };
  }

  /**
   * What the general path would do with every line of this line's shape (its digits aside), for the shape
   * scanners (scan.ts); null when that could depend on more than the shape, or is more than a serving line,
   * a phase line that changes nothing, or a line no rule reads. Changes nothing.
   */
  private classifyShape: ShapeClassifier = (buf, s, e, ts, tag, pid) => {
    const parsed = this.shapeLine(decodeLine(buf, s, e));
    if (parsed === null) return null;
    const { line, ctx } = parsed;
    // an engine frame inside the message: where it falls decides (the wrapper search's window), not the shape alone
    if (frameInside(line.msg)) return null;
    if (ctx.wrap !== null || line.rel !== null || line.ts !== ts || line.tags !== tag || line.pid !== pid)
      return null;
    const hit = this.match(line.msg);
    if (hit === null) {
      const engine = this.current?.engine ?? this.detector.best();
      if (line.msg.includes('%') || engine === null || catalogLine(engine, line.msg) !== null) return null;
      return { kind: 'touch', phase: null, engine: false };
    }
    const { sig } = hit;
    if (sig.version || sig.config) return null;
    const engine = !COMMON.has(sig);
    if (sig.kind === 'serving') {
      if (hit.engine.sample?.(sig, hit.m)) return null;
      // a request line: in a steady launch its status changes nothing but the count
      return { kind: sig.id === 'access' ? 'access' : 'serving', phase: null, engine };
    }
    if (
      sig.kind === 'phase' &&
      sig.phase &&
      !line.msg.includes('%') &&
      phaseRank(sig.phase) >= phaseRank('ready') &&
      phaseRank(sig.phase) < phaseRank('serving')
    )
      return { kind: 'phase', phase: sig.phase, engine };
    return null;
  };

  /**
   * Joins what another reader found in the part of the file after the bytes pushed so far. Returns null when
   * done, or the line boundary from which the caller must push the rest of the file itself (a run that
   * cannot be applied in the state this reader is in, or a part the other reader did not keep).
   */
  applySegments(scan: RangeScan): { lineNo: number; offset: number } | null {
    const base = this.splitter.lines;
    const segs = scan.segments;
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i]!;
      if (seg.kind === 'line') {
        // Consecutive lines are pushed as one chunk, so that the bulk readers see runs of them, not single lines.
        const parts: Uint8Array[] = [seg.bytes];
        let last = seg;
        while (seg.terminated && i + 1 < segs.length) {
          const next = segs[i + 1]!;
          if (next.kind !== 'line' || next.no !== last.no + 1) break;
          parts.push(NEWLINE, next.bytes);
          last = next;
          i++;
          if (!next.terminated) break;
        }
        if (last.terminated) parts.push(NEWLINE);
        this.splitter.seek(base + seg.no - 1, seg.offset);
        this.push(parts.length === 1 ? seg.bytes : Buffer.concat(parts));
        continue;
      }
      const run = shiftRun(seg.run, base);
      const fits =
        seg.assumed === undefined
          ? this.steady()
          : this.current === this.planLaunch &&
            this.bulkScanner() !== null &&
            this.detector.locked?.id === seg.assumed.engine &&
            this.lastTs === seg.assumed.lastTs &&
            this.ctx.year === seg.assumed.year;
      if (!fits) return { lineNo: run.firstLine - 1, offset: run.firstOffset };
      this.applyRun(run);
      this.splitter.seek(run.lastLine, run.endOffset);
    }
    if (scan.stoppedAt) return { lineNo: base + scan.stoppedAt.lineNo, offset: scan.stoppedAt.offset };
    return null;
  }

  /** Continues from a line boundary of the file (see `applySegments`). */
  seek(lineNo: number, offset: number): void {
    this.splitter.seek(lineNo, offset);
  }

  /** Applies a run read in bulk, here or by another thread. */
  applyRun(r: ServingRunData): void {
    if (r.lines === 0) return;
    this.current!.applyRun(r);
    // a generic run's lines (`busy` said) were each a line the detector looked at for a program's name
    if (r.busy !== undefined) this.detector.programLines = Math.max(0, this.detector.programLines - r.lines);
    if (r.lastTs !== null) this.lastTs = r.lastTs;
    if (r.year >= 0) this.ctx.year = r.year;
    this.tracker.reset();
  }
}

/**
 * The text before a vLLM logger line's message (its prefix and wrappers), which NewLineFormatter repeats on each
 * line of one record; null for other frames and where the message is not the line's tail.
 */
function loggerPrefix(line: LogLine): string | null {
  if (line.frame !== 'vllm' || line.msg === '') return null;
  const p = textBeforeMessage(line);
  return p === null || p.trim() === '' ? null : p;
}
