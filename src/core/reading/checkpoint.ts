/**
 * A LogAnalyzer's resumable state as bytes (`LogAnalyzer.checkpoint` / `LogAnalyzer.restore`), so that the
 * next read of a growing log starts where the last one stopped instead of at byte 0.
 *
 * Everything mutable is saved, through StateCodec: the launches and all they hold, the current launch,
 * detector scores, the traceback being read, a config block being gathered, bar bases, counters. The bulk
 * reader keeps nothing between lines (each run it reads is applied at once), and a checkpoint is only taken
 * at a line boundary, so the splitter's partial-line buffer is empty. Plain JSON bytes: the store may
 * compress them; the core stays free of node modules.
 *
 * A checkpoint names its format version, a fingerprint of the saved classes' fields and the reading rules it
 * was read by (READING_ID: a hash of the core's sources, made at build): one written by another version of
 * firedup fails to restore with a CheckpointError, and the caller reads the log afresh. The rules matter as much
 * as the format: a resumed read keeps the launches as they were read, so after an upgrade that reads a line
 * otherwise, every log the ledger holds would keep its old reading.
 */
import { FiredupError } from '../../errors.js';
import { bulkInstance } from '../base/bulk-instance.js';
import { type ClassSpec, type IntoSpec, type Json, StateCodec } from '../base/state-codec.js';
import { SeriesSummary, TimeSeries } from '../base/stats.js';
import type { EngineId } from '../base/types.js';
import { commonSignatures } from '../engines/common.js';
import { ENGINE_MODULES } from '../engines/index.js';
import { HardWrap } from '../lines/hard-wrap.js';
import { DEFAULT_MAX_LINE, LineSplitter } from '../lines/splitter.js';
import { EngineDetector } from './detect.js';
import { LaunchBuilder } from './launch.js';
import { PySpyReader } from './pyspy.js';
import { READING_ID } from './reading-id.js';
import { TracebackTracker } from './traceback.js';

/** Bump when the meaning of saved state changes in a way the field fingerprint cannot see. */
/** v4: a launch keeps its Ray nodes (LaunchBuilder.ray, LogLine.ip); a v3 checkpoint is read afresh. */
/** v5: the analyzer keeps the file's head until its gutter is known (lines/gutter.ts). */
/** v6: the analyzer keeps the lines read before any engine evidence, to read them again (LogAnalyzer.prefix). */
/** v7: the prefix is kept until the detector locks, read again whenever its best engine changes. */
export const CHECKPOINT_VERSION = 7;
const MAGIC = 'firedup-checkpoint';

export type CheckpointErrorCode = 'corrupt' | 'version' | 'options';

/** A checkpoint that cannot be restored: the caller reads the log from the start instead. */
export class CheckpointError extends FiredupError<CheckpointErrorCode> {
  constructor(code: CheckpointErrorCode, message: string) {
    super(code, message);
    this.name = 'CheckpointError';
  }
}

/**
 * The analyzer's own fields. `ended` must be false (checked), `onRaw` is its bound line sink and `options`
 * what the constructor was given (restore is given them again, and checks they match).
 */
export const ANALYZER_SPEC: IntoSpec = {
  kind: 'into',
  name: 'LogAnalyzer',
  // Not registered with the codec: the analyzer is only ever the root, encoded and decoded by position.
  proto: Object.prototype,
  state: [
    'splitter',
    'ctx',
    'detector',
    'tracker',
    'launches',
    'current',
    'lastTs',
    'barBase',
    'truncatedLines',
    'block',
    'hardWrap',
    'held',
    'released',
    'head',
    'headChars',
    'headYear',
    'prefix',
    'engineServices',
    'pyspy',
  ],
  // `rereading` is only true inside one line's reading, never at a line boundary.
  // `explainer` is only set for an explaining read, which is never resumed from a checkpoint. The serving-line
  // scanners (scan.ts) keep only caches of pure functions of bytes, and `scanEnv` is refilled before each use.
  // `settle` is the reader's, set again by the next one (`released` is saved: the launches handed off stay so).
  // `planLaunch` only joins a worker's runs to the read that started the worker; `headSeen` caches a pure function.
  // The generic reader (generic-scan.ts) keeps only its tables of what the general path does with a shape in a
  // state (learned again after a restore) and when to rest, which decides which path reads a line, not how;
  // `keyParts`/`keyText` cache the key of that state (genericKey), made again when empty; `keyNext` is the spare
  // array its next parts are put in.
  rebuilt: [
    'onRaw',
    'ended',
    'options',
    'explainer',
    'scanners',
    'scanEnv',
    'classifyShape',
    'generic',
    'classifyGeneric',
    'settle',
    'planLaunch',
    'headSeen',
    'rereading',
    'keyParts',
    'keyText',
    'keyNext',
  ],
};

/** At a line boundary the carry buffer is empty; the sink, limit and bulk hook come from the options. */
export const SPLITTER_SPEC: IntoSpec = {
  kind: 'into',
  name: 'LineSplitter',
  proto: LineSplitter.prototype,
  state: ['lineNo', 'lineStart', 'consumed'],
  rebuilt: ['carry', 'carryLen', 'carryTruncated', 'pending', 'sink', 'maxLine', 'bulk'],
};

/** Classes saved whole (every own field), with a fresh instance of each for the field fingerprint. */
export const CREATED: ReadonlyArray<{ spec: ClassSpec; fresh: () => object }> = [
  {
    spec: { kind: 'create', name: 'LaunchBuilder', proto: LaunchBuilder.prototype },
    fresh: () => new LaunchBuilder(0, 1, 0, false),
  },
  {
    spec: { kind: 'create', name: 'SeriesSummary', proto: SeriesSummary.prototype },
    fresh: () => new SeriesSummary(true),
  },
  {
    spec: { kind: 'create', name: 'TimeSeries', proto: TimeSeries.prototype },
    fresh: () => new TimeSeries(),
  },
  {
    spec: { kind: 'create', name: 'EngineDetector', proto: EngineDetector.prototype },
    fresh: () => new EngineDetector(),
  },
  {
    spec: { kind: 'create', name: 'TracebackTracker', proto: TracebackTracker.prototype },
    fresh: () => new TracebackTracker(),
  },
  {
    spec: { kind: 'create', name: 'PySpyReader', proto: PySpyReader.prototype },
    fresh: () => new PySpyReader(),
  },
  {
    spec: { kind: 'create', name: 'HardWrap', proto: HardWrap.prototype },
    fresh: () => new HardWrap(),
  },
];

/** Engine modules and the parsers a config block being gathered points at are saved by name. */
function constants(): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const e of ENGINE_MODULES) {
    out.push([`engine:${e.id}`, e]);
    for (const s of e.signatures) {
      if (s.config) out.push([`${e.id}:${s.id}:config`, s.config]);
      if (s.version) out.push([`${e.id}:${s.id}:version`, s.version]);
    }
  }
  for (const s of commonSignatures) {
    if (s.config) out.push([`common:${s.id}:config`, s.config]);
    if (s.version) out.push([`common:${s.id}:version`, s.version]);
  }
  return out;
}

let shared: { codec: StateCodec; schema: string } | null = null;

/**
 * A 53-bit hash of the saved state's UTF-8 bytes (cyrb53's mixing, four bytes at a time): a checkpoint
 * damaged on disk or edited by hand fails to restore (and the log is read afresh) instead of continuing from
 * nonsense. It runs once each way per `firedup status`, before V8 has optimised anything: the loop is the
 * bulk wasm module's (assembly/bulk.ts, sumFeed), ~2.5 ms less than in JS for a 40 kB checkpoint (v3).
 */
export function sum53(text: string): string {
  return sumBytes(Buffer.from(text, 'utf8'));
}

interface SumExports {
  memory: WebAssembly.Memory;
  sumStart(): void;
  sumFeed(start: number, end: number): void;
  sumEnd(): number;
}

let summer: SumExports | null = null;
/** Where the bytes go in the instance's memory (assembly/bulk.ts, IN: its own instance, nothing else there). */
const IN = 524288;
/** Bytes hashed per copy into the instance's memory (a multiple of 4). */
const SUM_PIECE = 1 << 20;

function sumBytes(bytes: Uint8Array): string {
  summer ??= bulkInstance() as unknown as SumExports;
  const x = summer;
  const need = IN + Math.min(bytes.length, SUM_PIECE) - x.memory.buffer.byteLength;
  if (need > 0) x.memory.grow(Math.ceil(need / 65536));
  x.sumStart();
  for (let pos = 0; pos < bytes.length; pos += SUM_PIECE) {
    const piece = bytes.subarray(pos, Math.min(bytes.length, pos + SUM_PIECE));
    new Uint8Array(x.memory.buffer, IN, piece.length).set(piece);
    x.sumFeed(IN, IN + piece.length);
  }
  return x.sumEnd().toString(16);
}

/** FNV-1a, 32 bits, as hex: enough to tell two field lists apart. */
function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

function setup(): { codec: StateCodec; schema: string } {
  if (shared) return shared;
  const codec = new StateCodec([SPLITTER_SPEC, ...CREATED.map((c) => c.spec)], constants());
  const parts = [ANALYZER_SPEC, SPLITTER_SPEC].map((s) => `${s.name}:${s.state.join(',')}`);
  for (const c of CREATED) parts.push(`${c.spec.name}:${Object.keys(c.fresh()).join(',')}`);
  shared = { codec, schema: fnv(parts.join(';')) };
  return shared;
}

/**
 * The options a checkpoint depends on (a subset of AnalyzerOptions, analyzer.ts): restoring under others would
 * not continue the same read. Named here, not imported, so the codec knows the analyzer only by ANALYZER_SPEC.
 */
export interface CheckpointOptions {
  engine?: EngineId;
  maxLine?: number;
  year?: number;
}

function optionKey(opts: CheckpointOptions): Json {
  return { engine: opts.engine ?? null, maxLine: opts.maxLine ?? DEFAULT_MAX_LINE, year: opts.year ?? 2026 };
}

/**
 * Called by LogAnalyzer.checkpoint, which has checked the analyzer is at a line boundary and not ended. The
 * analyzer is any object here: ANALYZER_SPEC names the fields saved, and the codec throws on one it does not know.
 */
export function encodeCheckpoint(a: object, opts: CheckpointOptions): Uint8Array {
  const { codec, schema } = setup();
  const state = Buffer.from(JSON.stringify(codec.encodeInto(a, ANALYZER_SPEC)), 'utf8');
  const head = {
    magic: MAGIC,
    v: CHECKPOINT_VERSION,
    schema,
    rules: READING_ID,
    opts: optionKey(opts),
    sum: sumBytes(state),
  };
  // One header line, then the state: JSON.stringify never leaves a raw newline inside a value.
  return Buffer.concat([Buffer.from(`${JSON.stringify(head)}\n`, 'utf8'), state]);
}

/** Called by LogAnalyzer.restore with an analyzer freshly built from `opts`. */
export function decodeCheckpoint(data: Uint8Array, into: object, opts: CheckpointOptions): void {
  const { codec, schema } = setup();
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const text = bytes.toString('utf8');
  const nl = text.indexOf('\n');
  let doc: Record<string, Json>;
  try {
    doc = JSON.parse(nl < 0 ? text : text.slice(0, nl));
  } catch {
    throw new CheckpointError('corrupt', 'checkpoint: not a checkpoint (unreadable)');
  }
  if (doc === null || typeof doc !== 'object' || doc.magic !== MAGIC)
    throw new CheckpointError('corrupt', 'checkpoint: not a checkpoint');
  if (doc.v !== CHECKPOINT_VERSION || doc.schema !== schema)
    throw new CheckpointError('version', `checkpoint: written by another version (v${doc.v}, ${doc.schema})`);
  if (doc.rules !== READING_ID)
    throw new CheckpointError(
      'version',
      `checkpoint: read by other rules (${doc.rules ?? 'unnamed'}, now ${READING_ID})`,
    );
  if (JSON.stringify(doc.opts) !== JSON.stringify(optionKey(opts)))
    throw new CheckpointError('options', 'checkpoint: taken with other options (engine, line limit, year)');
  const stateText = nl < 0 ? '' : text.slice(nl + 1);
  // Byte 10 is never part of a longer UTF-8 character: the first one is the text's first newline.
  const nlByte = bytes.indexOf(10);
  if (doc.sum !== sumBytes(nlByte < 0 ? bytes.subarray(bytes.length) : bytes.subarray(nlByte + 1)))
    throw new CheckpointError('corrupt', 'checkpoint: damaged (checksum)');
  try {
    codec.decodeInto(JSON.parse(stateText), into, ANALYZER_SPEC);
  } catch (err) {
    throw new CheckpointError('corrupt', `checkpoint: ${(err as Error).message}`);
  }
}
