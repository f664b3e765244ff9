/**
 * py-spy's stack dumps, read for the phase their frames show. A user who finds a launch hung pastes
 * `py-spy dump --pid N`, and SGLang prints one itself when its watchdog finds a batch stuck
 * (srt/utils pyspy_dump_schedulers: `Pyspy dump for PID %d:` then py-spy's output). py-spy (src/dump.rs
 * print_trace) prints each thread as `Thread N (active): "MainThread"` then its frames, innermost first, one a
 * line: `    function (short/path/file.py:line)`, with the file shortened to its path under the import root.
 *
 * The frames are read as a traceback's are (traceback.ts readFrame, the engines' frame tables), in reverse: the
 * innermost frame that tells a phase tells the thread's; one only a module-wide glob placed (weak) tells it only
 * if no outer frame does. A short file name holds no package, so the engine read so far names the table.
 */
import type { EngineId, Phase } from '../base/types.js';
import { type FrameEngine, frameEngine, lookupFrame } from '../engines/frames/index.js';

/** `Thread 310 (active): "MainThread"`, `Thread 0x7F2A (idle+gil): "Thread-3"` (py-spy src/dump.rs). */
const THREAD = /^Thread (?:\d+|0x[\dA-Fa-f]+) \([\w+ ]+\)(?::|$)/;
/** `    run_batch (scheduler.py:1930)`, or without a line number (py-spy prints none for line 0). */
const FRAME = /^ {4}([\w.<>]+) \(([^():]+?\.py[cw]?)(?::\d+)?\)\s*$/;
const FRAME_ENGINES: ReadonlySet<string> = new Set<FrameEngine>(['sglang', 'vllm', 'trtllm', 'tgi']);

/** The phase a thread's frames showed, and the frame line that showed it. */
export interface PySpyPhase {
  phase: Phase;
  no: number;
}

export class PySpyReader {
  /** Inside a thread's frame list. */
  private inThread = false;
  /** A phase the thread's innermost telling frame showed already (outer frames then tell nothing more). */
  private told = false;
  /** A weak phase seen so far in this thread, told at the thread's end unless an outer frame tells one. */
  private weak: PySpyPhase | null = null;

  /**
   * Reads one message; returns the phase a thread's frames showed, once: at its innermost telling frame, or
   * (a weak one) when the thread's frames end.
   */
  feed(msg: string, no: number, engine: EngineId | null): PySpyPhase | null {
    if (THREAD.test(msg)) {
      const weak = this.end();
      this.inThread = true;
      return weak;
    }
    if (!this.inThread) return null;
    const f = FRAME.exec(msg);
    if (f === null) return msg.trim() === '' || /^ {8}/.test(msg) ? null : this.end();
    if (this.told) return null;
    const path = f[2]!;
    const own = frameEngine(path);
    const table =
      own ??
      (engine !== null &&
      FRAME_ENGINES.has(engine) &&
      !/^(?:torch|multiprocessing|asyncio|threading|concurrent)\//.test(path)
        ? (engine as FrameEngine)
        : null);
    if (table === null) return null;
    const v = lookupFrame(table, path, f[1]!);
    if (v.kind !== 'phase' || v.phase === 'shutdown') return null;
    if (v.weak) {
      this.weak ??= { phase: v.phase, no };
      return null;
    }
    this.told = true;
    this.weak = null;
    return { phase: v.phase, no };
  }

  /** The thread's frames ended: its weak phase, if no frame told a stronger one. */
  private end(): PySpyPhase | null {
    const weak = this.told ? null : this.weak;
    this.inThread = false;
    this.told = false;
    this.weak = null;
    return weak;
  }
}
