import type { EngineId, FailureClass, LogLine, Phase } from '../base/types.js';

/**
 * What a signature says about a line:
 * - launch: a launch starts here (`strong` anchors always open one once the current launch has moved on;
 *   weak anchors only after the current launch has got somewhere)
 * - phase: the launch has reached `phase`
 * - progress: a load progress bar (`done/total`)
 * - ready, serving, shutdown: as named
 * - failure: a root cause (`failure` gives its class, or the message is classified)
 * - consequence: a line that follows a failure (`Received sigquit`, `Killed`, `Engine core initialization failed`)
 * - degraded / stall_hint: the server says something is wrong without dying
 * - noise: matches a failure-looking pattern but is known to be harmless
 */
export type SignatureKind =
  | 'launch'
  | 'phase'
  | 'progress'
  | 'ready'
  | 'serving'
  | 'shutdown'
  | 'failure'
  | 'consequence'
  | 'degraded'
  | 'stall_hint'
  | 'noise';

export interface Signature {
  id: string;
  kind: SignatureKind;
  /** Matched against the message (the line without its wrappers and logger prefix). */
  re: RegExp;
  /** A substring the message must contain; checked before the regex, so most lines cost one `includes`. */
  lit?: string;
  phase?: Phase;
  /**
   * For failure lines, the class; for consequence lines, the class when no cause is in the log (else read from the
   * words); for degraded lines, the class of a traceback that opens soon after and is cut before its exception
   * (LaunchBuilder.warnedClass).
   */
  failure?: FailureClass;
  /**
   * For failure lines whose first group is an error the engine raised and a catcher printed (llama.cpp's
   * `error loading model: <what()>`, an uncaught exception's `what():`): the engine's own raise site
   * (engine-source catalog, catalog-match.ts classifyRaise) classes it before the wording rules do.
   */
  raised?: boolean;
  /**
   * For failure lines that relay a failure another process may have reported already (a launcher's "the child
   * failed to start" after the child's own traceback, a client's error for a call the server died in): the phase
   * the failure implies, unless an earlier failure of the launch was placed (the child's own lines said where it
   * died). With no earlier failure, or none placed, it marks the phase as `phase` would.
   */
  phaseIfUnplaced?: Phase;
  /** For launch anchors: strong anchors are the engine's own "I am starting" line. */
  strong?: boolean;
  /**
   * For launch anchors printed by every process of a launch (an import banner, printed again by each worker the
   * launcher spawns): a repeat before the launch got past its arguments is another process of the same launch.
   */
  perProcess?: boolean;
  /**
   * For stall hints: the engine's own watchdog found the server stuck (not a slow step it is waiting on), so the
   * launch is stuck at once, where other hints need a second in a row (LaunchBuilder.stuck).
   */
  stuck?: boolean;
  /** For degraded lines: the engine says it handled the failure just reported (the server goes on). */
  recovers?: boolean;
  /**
   * For serving lines: a request finished and was answered end to end (TGI's router `Success`), which only a
   * live server does, so a failure read before it did not stop the server (a failed batch, a refused request).
   */
  completes?: boolean;
  /**
   * For degraded lines: the engine logged an exception it caught and went on (`logger.exception` in an `except`
   * that does not raise again). The traceback printed under this line, up to the next line of the logger's own,
   * is that exception's: a failure the launch got past, not a crash.
   */
  catches?: boolean;
  /**
   * For failure lines: an exit that says the shutdown lines before it were the cleanup after a failure (a
   * launcher that stops its children, then returns its error), so the launch crashed rather than stopped.
   */
  afterShutdown?: boolean;
  /** For shutdown lines: what the line means when the server was never up (the processes died unasked). */
  beforeReady?: FailureClass;
  /**
   * For ready and phase lines of an HTTP server that may start before the model is loaded: the line says what
   * its kind says only once the launch has reached this phase; before, it shows the port listening and nothing
   * more (the launch keeps its phase; `listening` keeps the line).
   */
  after?: Phase;
  /**
   * With `after`: only once the launch has shown a phase. A fragment that starts at this line (nothing before it)
   * is read as the kind says, since builds that print it after the model is in are the many.
   */
  afterKnown?: boolean;
  /**
   * For the engine's last line of its own initialisation: when the HTTP server was already seen listening
   * (`after` above), the launch is ready at this line.
   */
  readyOnceListening?: boolean;
  /**
   * For phase lines that a library prints at a step of its own, which one host program reaches before another: the
   * line marks its phase in a launch with no phase yet (a fragment that starts here) or one already at `from` or
   * beyond; before `from` it tells nothing.
   */
  from?: Phase;
  /** Phase lines that never open a launch of their own (frames of a native stack, say). */
  weak?: boolean;
  /**
   * For a server's line that starts a model runner of its own after the server is up (Ollama's `starting llama
   * server`): the launch stays one, but its phase follows the runner from here (args again), so that a runner
   * that dies loading is read at the phase it reached.
   */
  restarts?: boolean;
  /** Parses the configuration printed on this line. */
  config?: (msg: string) => Record<string, unknown> | null;
  /** Reads a version from the match. */
  version?: (m: RegExpExecArray) => string | null;
}

export interface ServingSample {
  ts: number | null;
  line: number;
  genTps: number | null;
  promptTps: number | null;
  running: number | null;
  queued: number | null;
  /** KV-cache usage, 0..1. */
  kvUsage: number | null;
}

export interface ProgressReading {
  done: number;
  total: number;
  /** Seconds since the bar started, from the bar itself. */
  elapsed: number | null;
  /** Seconds the bar expects to remain. */
  remaining: number | null;
  /** Items per second. */
  rate: number | null;
  desc: string;
}

/** An exception the engine raises with a known class (EngineModule.raises). */
export interface RaiseRule {
  /** Matched against the exception's bare class name (`RuntimeError`, not `builtins.RuntimeError`). */
  type: RegExp;
  message: RegExp;
  failure: FailureClass;
}

export interface EngineModule {
  id: EngineId;
  /** How strongly one line says "this log is mine" (0: not at all). */
  detect(line: LogLine): number;
  signatures: Signature[];
  /** Serving sample from a `serving` signature's match. */
  sample?(sig: Signature, m: RegExpExecArray): Omit<ServingSample, 'ts' | 'line'> | null;
  /** What to check next, per failure class or per stalled phase. */
  hints: Partial<Record<FailureClass | `stalled:${Phase}`, string>>;
  /**
   * Exceptions whose class the engine's source fixes but the generated catalog cannot hold (a message too short
   * to match safely, engines/catalog-match.ts): the first rule whose `type` (the bare class name) and `message`
   * both match names the class. `other` marks an exception raised only because of a failure printed elsewhere
   * (a consequence: it never outranks that failure).
   */
  raises?: readonly RaiseRule[];
  /**
   * A weight-loading bar (its description) whose reaching its total is the last the engine shows of the load:
   * where the engine prints no line of its own once its weights are in, that bar at its total is the launch's
   * weights loaded. (vLLM's and SGLang's shard bars are not: `Loading weights took`, `Load weight end.` follow
   * the post-processing that comes after them.)
   */
  loadedAtBarEnd?: RegExp;
  /** Seconds a phase may stay silent before a live watcher calls it stalled (research/, §4.1 and §5.3). */
  silentBudget: Partial<Record<Phase, number>>;
}
