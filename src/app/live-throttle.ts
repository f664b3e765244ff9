/**
 * A fleet target's `live` events at most every `everyMs` (the dashboard and `ps` redraw on them): a change
 * after a quiet spell goes out at once, changes within the interval are folded into one, and the last change
 * always goes out. Shared by one log (watched-target.ts) and a multi-node launch (watched-nodes.ts).
 */
export class LiveThrottle {
  private lastAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly everyMs: number,
    private readonly fire: () => void,
  ) {}

  schedule(): void {
    if (this.timer || this.stopped) return;
    const wait = Math.max(0, this.lastAt + this.everyMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.stopped) return;
      this.lastAt = Date.now();
      this.fire();
    }, wait);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
