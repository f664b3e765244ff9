/** Engine detection: every line votes; the engine with the most evidence wins. */
import { ENGINE_MODULES } from './engines/index.js';
import type { EngineModule } from './engines/types.js';
import type { EngineId, LogLine } from './types.js';

const LOCK_SCORE = 40;

export class EngineDetector {
  readonly scores: Record<EngineId, number> = { sglang: 0, vllm: 0, trtllm: 0, tgi: 0, llamacpp: 0 };
  private order: EngineModule[] = [...ENGINE_MODULES];
  locked: EngineModule | null = null;

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
        changed = true;
      }
    }
    if (!changed) return;
    this.order = [...ENGINE_MODULES].sort((a, b) => this.scores[b.id] - this.scores[a.id]);
    const [first, second] = this.order;
    if (this.scores[first!.id] >= LOCK_SCORE && this.scores[first!.id] >= 4 * this.scores[second!.id])
      this.locked = first!;
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
