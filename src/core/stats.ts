/**
 * Constant-memory summary of a series: count, last, peak and an approximate median from a log-scale
 * histogram (bins 1% wide), so a 1 GB serving log costs a few kilobytes.
 */
const BINS = 1400; // 1.01^1400 ≈ 1.1e6: covers 0.01 .. 10k tok/s and beyond with 1% resolution

export class SeriesSummary {
  count = 0;
  last: number | null = null;
  peak: number | null = null;
  private zeros = 0;
  private readonly hist: Uint32Array | null;

  constructor(withMedian = false) {
    this.hist = withMedian ? new Uint32Array(BINS) : null;
  }

  add(v: number): void {
    this.count++;
    this.last = v;
    if (this.peak === null || v > this.peak) this.peak = v;
    const hist = this.hist;
    if (hist === null) return;
    if (v <= 0.01) {
      this.zeros++;
      return;
    }
    let b = Math.floor(Math.log(v / 0.01) / Math.log(1.01));
    if (b >= BINS) b = BINS - 1;
    hist[b]!++;
  }

  /** Median of the values, to within 1%. */
  median(): number | null {
    const hist = this.hist;
    if (this.count === 0 || hist === null) return null;
    let need = Math.ceil(this.count / 2);
    if (need <= this.zeros) return 0;
    need -= this.zeros;
    for (let b = 0; b < BINS; b++) {
      need -= hist[b]!;
      if (need <= 0) return Math.round(0.01 * 1.01 ** (b + 0.5) * 100) / 100;
    }
    return this.peak;
  }
}

/**
 * Keeps at most `max` points of a time series by merging neighbours: when full, every other point is
 * dropped and the stride doubles. Memory stays bounded however long the server runs.
 */
export class Downsampler {
  readonly points: Array<[number, number]> = [];
  private stride = 1;
  private seen = 0;

  constructor(private readonly max = 512) {}

  add(t: number, v: number): void {
    if (this.seen++ % this.stride !== 0) return;
    this.points.push([t, v]);
    if (this.points.length >= this.max) {
      for (let i = 0, j = 0; i < this.points.length; i += 2, j++) this.points[j] = this.points[i]!;
      this.points.length = Math.ceil(this.points.length / 2);
      this.stride *= 2;
    }
  }
}
