/** Engine detection: every line votes; the engine with the most evidence wins. */
import { ENGINE_MODULES } from './engines/index.js';
import type { EngineModule } from './engines/types.js';
import type { EngineId, LogLine } from './types.js';

const LOCK_SCORE = 40;
/** Voting lines kept per engine for `status --explain`: the heaviest few, so the state stays small. */
const KEPT_VOTES = 5;

/** A line that voted for an engine: what `status --explain` shows as the engine's evidence. */
export interface Vote {
  line: number;
  weight: number;
  text: string;
}

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

  constructor(forced?: EngineId) {
    if (forced) this.locked = ENGINE_MODULES.find((e) => e.id === forced)!;
  }

  observe(line: LogLine): void {
    if (this.locked) return;
    let changed = false;
    for (const e of ENGINE_MODULES) {
      const s = e.detect(line);
      if (s > 0) {
        this.scores[e.id] += s;
        this.keepVote(e.id, s, line);
        changed = true;
      }
    }
    if (!changed) return;
    this.order = [...ENGINE_MODULES].sort((a, b) => this.scores[b.id] - this.scores[a.id]);
    const [first, second] = this.order;
    if (this.scores[first!.id] >= LOCK_SCORE && this.scores[first!.id] >= 4 * this.scores[second!.id])
      this.locked = first!;
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

  best(): EngineId | null {
    if (this.locked) return this.locked.id;
    const top = this.order[0]!;
    return this.scores[top.id] > 0 ? top.id : null;
  }
}
