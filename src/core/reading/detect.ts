/**
 * Engine detection: every line votes with the weight of its kind of evidence (engines/evidence.ts); the engine
 * with the most evidence wins.
 *
 * A server that runs an engine as its own embedded runner is not that engine: Ollama starts a llama.cpp runner
 * whose lines (`llama_model_loader: …`) fill its log, but the server a user runs, its API and its lines
 * (Go `log/slog`: `time=… level=INFO source=routes.go:N msg=…`, server/routes.go, llm/server.go) are
 * Ollama's. Once such a server says its name, the engine is reported as none of ours (the label rules'
 * `other`); the runner's engine still reads the phases.
 */

import type { EngineId, LogLine } from '../base/types.js';
import { catalogOwner } from '../engines/catalog-match.js';
import { WEIGHT } from '../engines/evidence.js';
import { PROGRAMS } from '../engines/generic.js';
import { ENGINE_MODULES } from '../engines/index.js';
import type { EngineModule } from '../engines/types.js';

const LOCK_SCORE = 40;
/** Voting lines kept per engine for `status --explain`: the heaviest few, so the state stays small. */
const KEPT_VOTES = 5;

/** A line that voted for an engine: what `status --explain` shows as the engine's evidence. */
export interface Vote {
  line: number;
  weight: number;
  text: string;
}
/** Go slog's text handler (`time=… level=… source=file.go:N msg=…`), as Ollama prints it. */
const GO_SLOG = /^time=\S+ level=[A-Z]+ source=[\w./-]+\.go:\d+ msg=/;
const OLLAMA = /ollama|msg="(?:starting llama server|waiting for llama runner)/i;
const FOREIGN_DECIDES = 10;
/**
 * Lines read against the engines' catalogs while no line has voted: a paste stripped of its logger prefixes
 * (`Loading model weights took 14.99 GB`, `# GPU blocks: 1478, # CPU blocks: 2048`) names its engine only by
 * the words of the engine's own log calls (engines/catalog-match.ts catalogOwner).
 */
const CATALOG_LINES = 2000;
/**
 * Engines whose catalog lines are their server's own: SGLang's and vLLM's log calls run in their servers, TGI's in
 * its launcher, router and shard server (a reporter's abridged log, `Warming up model`, `Setting max batch total
 * tokens to 30816`, keeps only the messages; forks that copy them, LoRAX, name themselves: engines/generic.ts
 * PROGRAMS). llama.cpp's and TensorRT-LLM's are a library's, printed as well by the programs that embed it
 * (llama-cpp-python, Ollama, Triton's backend), whose logs are none of ours.
 */
const SERVER_CATALOGS: ReadonlySet<EngineId> = new Set<EngineId>(['sglang', 'vllm', 'tgi']);
/** Lines read for a program's name (engines/generic.ts PROGRAMS): programs name themselves at start-up. */
const PROGRAM_LINES = 2000;
/** One pass over a line for any program's name; the table then says which. */
const ANY_PROGRAM = new RegExp(PROGRAMS.map((p) => p.re.source).join('|'), 'i');

export class EngineDetector {
  readonly scores: Record<EngineId, number> = { sglang: 0, vllm: 0, trtllm: 0, tgi: 0, llamacpp: 0 };
  private order: EngineModule[] = [...ENGINE_MODULES];
  locked: EngineModule | null = null;
  /** Per engine: how many lines voted, and the heaviest votes (earliest first among equals). */
  readonly votes: Record<EngineId, { lines: number; top: Vote[] }> = {
    sglang: { lines: 0, top: [] },
    vllm: { lines: 0, top: [] },
    trtllm: { lines: 0, top: [] },
    tgi: { lines: 0, top: [] },
    llamacpp: { lines: 0, top: [] },
  };
  /** Evidence that the server is another program wrapping an engine (Ollama). */
  foreign = 0;
  /** The program whose lines name it (engines/generic.ts PROGRAMS), the first one seen; null while none has. */
  program: string | null = null;
  /** Lines still to read for a program's name. */
  programLines = PROGRAM_LINES;
  /** Lines still to read against the catalogs while nothing voted. */
  private catalogLines = CATALOG_LINES;
  /** The text of the last line read for votes. */
  private lastText = '';

  constructor(forced?: EngineId) {
    if (forced) this.locked = ENGINE_MODULES.find((e) => e.id === forced)!;
  }

  /**
   * Counts the line's votes; returns them (null when it voted for no engine, or the detector is locked and takes
   * no more votes), so that the launch the line falls in can weigh its own evidence (LaunchBuilder.votes).
   */
  observe(line: LogLine): Partial<Record<EngineId, number>> | null {
    if (this.foreign < FOREIGN_DECIDES && line.msg.startsWith('time=') && GO_SLOG.test(line.msg))
      this.foreign += OLLAMA.test(line.msg) ? FOREIGN_DECIDES : 1;
    if (this.foreign >= FOREIGN_DECIDES) this.program ??= 'ollama';
    if (this.programLines > 0) this.nameProgram(line);
    if (this.locked) return null;
    // The same line again at once is one fact printed by several processes (each process of a multi-process server
    // prints its import-time lines: SGLang's schedulers all log vLLM's `Automatically detected platform cuda.`), so
    // it votes once
    if (line.text === this.lastText) return null;
    this.lastText = line.text;
    let votes: Partial<Record<EngineId, number>> | null = null;
    for (const e of ENGINE_MODULES) {
      const s = e.detect(line);
      if (s > 0) {
        this.scores[e.id] += s;
        this.keepVote(e.id, s, line);
        (votes ??= {})[e.id] = s;
      }
    }
    if (votes === null && this.catalogLines > 0 && this.best() === null) {
      this.catalogLines--;
      const owner = catalogOwner(line.msg);
      if (owner !== null && SERVER_CATALOGS.has(owner)) {
        // the engine's own words, without its frame: as much as a line of its frame says
        this.scores[owner] += WEIGHT.frame;
        this.keepVote(owner, WEIGHT.frame, line);
        votes = { [owner]: WEIGHT.frame };
      }
    }
    if (votes === null) return null;
    this.order = [...ENGINE_MODULES].sort((a, b) => this.scores[b.id] - this.scores[a.id]);
    const [first, second] = this.order;
    if (this.scores[first!.id] >= LOCK_SCORE && this.scores[first!.id] >= 4 * this.scores[second!.id])
      this.locked = first!;
    return votes;
  }

  /**
   * Names the program from its own words (engines/generic.ts PROGRAMS): a program that runs an engine inside it
   * (`wraps`) decides that the server is none of ours, like Ollama's slog lines above.
   */
  private nameProgram(line: LogLine): void {
    this.programLines--;
    if (!ANY_PROGRAM.test(line.text)) return;
    const p = PROGRAMS.find((r) => r.re.test(line.text));
    if (p === undefined) return;
    if (p.wraps) {
      this.foreign = FOREIGN_DECIDES;
      if (this.program === null || !PROGRAMS.find((r) => r.name === this.program)?.wraps)
        this.program = p.name;
      this.programLines = 0;
    } else this.program ??= p.name;
  }

  /** Whether a line names a program (engines/generic.ts PROGRAMS), while names are still looked for. */
  namesProgram(text: string): boolean {
    return ANY_PROGRAM.test(text);
  }

  /** Whether the log is another program's that runs an engine inside it (engines/generic.ts PROGRAMS `wraps`). */
  get wrapped(): boolean {
    return this.foreign >= FOREIGN_DECIDES;
  }

  private keepVote(id: EngineId, weight: number, line: LogLine): void {
    const v = this.votes[id];
    v.lines++;
    const top = v.top;
    if (top.length === KEPT_VOTES && weight <= top[top.length - 1]!.weight) return;
    const vote = { line: line.no, weight, text: line.text.slice(0, 200) };
    let i = top.length;
    while (i > 0 && top[i - 1]!.weight < weight) i--;
    top.splice(i, 0, vote);
    if (top.length > KEPT_VOTES) top.pop();
  }

  /** Modules to try, most likely first. */
  candidates(): readonly EngineModule[] {
    return this.locked ? [this.locked] : this.order;
  }

  /** The engine to report: null when the server is another program that runs the engine inside it. */
  reported(): EngineId | null {
    return this.foreign >= FOREIGN_DECIDES ? null : this.best();
  }

  best(): EngineId | null {
    if (this.locked) return this.locked.id;
    const top = this.order[0]!;
    return this.scores[top.id] > 0 ? top.id : null;
  }
}
