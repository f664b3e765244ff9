/**
 * Constant-memory summaries of the serving numbers. Every one can be merged with a summary of the lines
 * that follow it, with the same result as feeding those lines one by one: that is what lets two threads
 * read the two halves of a 1 GB log and agree with a single reader.
 */

export const BINS = 1400; // 1.01^1400 ≈ 1.1e6: covers 0.01 .. 10k tok/s and beyond with 1% resolution
export const LOG_STEP = Math.log(1.01);
/** Values a median summary keeps one by one before it allocates its histogram. */
const FEW = 32;

/** The histogram bin of a value (log scale, 1% wide). */
export function binOf(v: number): number {
  const b = Math.floor(Math.log(v / 0.01) / LOG_STEP);
  return b >= BINS ? BINS - 1 : b;
}

/** count, last and peak of a series; `withMedian` adds a log-scale histogram for a median within 1%. */
export class SeriesSummary {
  count = 0;
  last: number | null = null;
  peak: number | null = null;
  zeros = 0;
  /**
   * The histogram, allocated once more than FEW values were counted; until then the bins of the values are
   * kept in `few` (same median): a launch that served a handful of batches keeps a few numbers, not 5.6 KB.
   */
  hist: Uint32Array | null = null;
  few: number[] | null = null;
  readonly withMedian: boolean;

  constructor(withMedian = false) {
    this.withMedian = withMedian;
  }

  /** The histogram, allocated (with the few values kept so far) if need be. */
  bins(): Uint32Array {
    if (this.hist === null) {
      this.hist = new Uint32Array(BINS);
      if (this.few !== null) for (const b of this.few) this.hist[b]!++;
      this.few = null;
    }
    return this.hist;
  }

  private put(bin: number): void {
    if (this.hist === null) {
      const few = (this.few ??= []);
      if (few.length < FEW) {
        few.push(bin);
        return;
      }
    }
    this.bins()[bin]!++;
  }

  add(v: number): void {
    this.count++;
    this.last = v;
    if (this.peak === null || v > this.peak) this.peak = v;
    if (!this.withMedian) return;
    if (v <= 0.01) {
      this.zeros++;
      return;
    }
    this.put(binOf(v));
  }

  /** Appends the summary of the values that came after this one's. */
  merge(o: SeriesSummaryData): void {
    if (o.count === 0) return;
    this.count += o.count;
    this.last = o.last;
    if (o.peak !== null && (this.peak === null || o.peak > this.peak)) this.peak = o.peak;
    this.zeros += o.zeros;
    if (!this.withMedian) return;
    if (o.hist) {
      const hist = this.bins();
      for (let i = 0; i < BINS; i++) hist[i]! += o.hist[i]!;
    }
    if (o.few) for (const b of o.few) this.put(b);
  }

  /** Median of the values, to within 1%. */
  median(): number | null {
    const hist = this.hist;
    if (this.count === 0 || !this.withMedian) return null;
    let need = Math.ceil(this.count / 2);
    if (need <= this.zeros) return 0;
    need -= this.zeros;
    if (hist === null) {
      const few = this.few === null ? [] : [...this.few].sort((a, b) => a - b);
      const b = few[need - 1];
      return b === undefined ? this.peak : Math.round(0.01 * 1.01 ** (b + 0.5) * 100) / 100;
    }
    for (let b = 0; b < BINS; b++) {
      need -= hist[b]!;
      if (need <= 0) return Math.round(0.01 * 1.01 ** (b + 0.5) * 100) / 100;
    }
    return this.peak;
  }
}

export type SeriesSummaryData = Pick<SeriesSummary, 'count' | 'last' | 'peak' | 'zeros' | 'hist'> & {
  few?: number[] | null;
};

/**
 * A time series kept as at most `max` buckets whose width doubles when they run out. Buckets sit on a
 * fixed grid (multiples of the width since the epoch) and hold integer sums (hundredths), so merging two
 * series, or feeding the same points in any grouping, gives exactly the same buckets. Sums live in typed
 * arrays and keys stay small integers: adding a point allocates nothing.
 */
export class TimeSeries {
  width = 1;
  /** bucket key → slot in `sums`/`counts` */
  private slots = new Map<number, number>();
  private sums: Float64Array;
  private counts: Float64Array;
  private used = 0;

  constructor(readonly max = 512) {
    // Small at first and doubled as buckets come (grow): a launch that never serves keeps almost nothing.
    this.sums = new Float64Array(Math.min(max + 1, 8));
    this.counts = new Float64Array(Math.min(max + 1, 8));
  }

  /** Keys count from 2^30 s (2004), a multiple of every width, so they fit V8's small integers. */
  private key(t: number): number {
    return Math.floor((t - ORIGIN) / this.width);
  }

  add(t: number, v: number): void {
    this.addSum(t, Math.round(v * 100), 1);
  }

  /** `n` points at time `t` whose values sum to `hundredths` / 100: the same as adding them one by one. */
  addSum(t: number, hundredths: number, n: number): void {
    this.put(this.key(t), hundredths, n);
  }

  /**
   * The triples (time, sum of hundredths, count) in `tri`, as addSum on each in turn: a run of them that falls
   * in one bucket at the width of the moment is summed first and put once (sums are whole hundredths, so the
   * order of the additions does not change them), sparing a map look-up per second of a busy log.
   */
  addSums(tri: Float64Array): void {
    if (this.used === 0 && this.addSortedFresh(tri)) return;
    const n = tri.length;
    let i = 0;
    while (i < n) {
      const k = this.key(tri[i]!);
      let sum = tri[i + 1]!;
      let count = tri[i + 2]!;
      i += 3;
      while (i < n && this.key(tri[i]!) === k) {
        sum += tri[i + 1]!;
        count += tri[i + 2]!;
        i += 3;
      }
      this.put(k, sum, count);
    }
  }

  /**
   * addSums into an empty series of triples in time order (a reader's call, the usual case): the width the
   * buckets end at is found first, the least (a power of two times the present one) at which their keys
   * number at most `max`, and each bucket put once. The same buckets and order as adding them one by one,
   * which doubles the width each time the buckets outnumber `max` and so ends at that same least width,
   * with the keys in order of first appearance; without a coarsening (a rebuilt map) per doubling.
   * False, having added nothing, when the times are not in order.
   */
  /** Whether nothing was added yet, at the first width: what `addFitted` needs. */
  isFresh(): boolean {
    return this.used === 0 && this.width === 1;
  }

  /**
   * Into a fresh series (isFresh), buckets already made as addSums makes them into one (the bulk reader's
   * seriesFit in assembly/bulk.ts, the same operations as addSortedFresh): `key, sum, count` at `width`.
   */
  addFitted(width: number, buckets: Float64Array): void {
    this.width = width;
    for (let i = 0; i < buckets.length; i += 3) this.insert(buckets[i]!, buckets[i + 1]!, buckets[i + 2]!);
  }

  private addSortedFresh(tri: Float64Array): boolean {
    const n = tri.length;
    if (scratch.length < n) scratch = new Float64Array(n);
    const b = scratch;
    // The buckets at the present width (nothing of the series is touched before the order is known)
    let m = 0;
    for (let i = 0; i < n; i += 3) {
      if (i > 0 && tri[i]! < tri[i - 3]!) return false;
      const k = this.key(tri[i]!);
      if (m > 0 && b[m - 3] === k) {
        b[m - 2]! += tri[i + 1]!;
        b[m - 1]! += tri[i + 2]!;
      } else {
        b[m] = k;
        b[m + 1] = tri[i + 1]!;
        b[m + 2] = tri[i + 2]!;
        m += 3;
      }
    }
    // Then f times wider (floor(floor(x / w) / f) = floor(x / fw)) while they outnumber max: a bucket f times
    // wider holds at most f of them, so no width below c / max times this one fits c buckets, and f starts there.
    while (m / 3 > this.max) {
      let f = 2;
      while (m / 3 / f > this.max) f *= 2;
      this.width *= f;
      let j = 0;
      for (let i = 0; i < m; i += 3) {
        const k = Math.floor(b[i]! / f);
        if (j > 0 && b[j - 3] === k) {
          b[j - 2]! += b[i + 1]!;
          b[j - 1]! += b[i + 2]!;
        } else {
          b[j] = k;
          b[j + 1] = b[i + 1]!;
          b[j + 2] = b[i + 2]!;
          j += 3;
        }
      }
      m = j;
    }
    for (let i = 0; i < m; i += 3) this.insert(b[i]!, b[i + 1]!, b[i + 2]!);
    return true;
  }

  private put(k: number, sum: number, n: number): void {
    this.insert(k, sum, n);
    if (this.used > this.max) this.coarsen();
  }

  private insert(k: number, sum: number, n: number): void {
    let slot = this.slots.get(k);
    if (slot === undefined) {
      slot = this.used++;
      if (slot >= this.sums.length) {
        this.sums = grow(this.sums);
        this.counts = grow(this.counts);
      }
      this.slots.set(k, slot);
      this.sums[slot] = 0;
      this.counts[slot] = 0;
    }
    this.sums[slot]! += sum;
    this.counts[slot]! += n;
  }

  merge(o: TimeSeries | TimeSeriesData): void {
    const w = o.width;
    if (o instanceof TimeSeries && o !== this) {
      // Bucket by bucket in its order, without a list of its entries: this runs in V8's interpreter at each
      // `firedup status` (a run's hundreds of buckets), where every array made is work for the GC.
      const { sums, counts } = o;
      o.slots.forEach((slot, k) => {
        this.mergeOne(w, k, sums[slot]!, counts[slot]!);
      });
      return;
    }
    if (o instanceof TimeSeries) {
      for (const [k, sum, n] of o.entries()) this.mergeOne(w, k, sum, n);
      return;
    }
    const d = o.data;
    for (let i = 0; i < d.length; i += 3) this.mergeOne(w, d[i]!, d[i + 1]!, d[i + 2]!);
  }

  private mergeOne(w: number, k: number, sum: number, n: number): void {
    // Their buckets are wider: come to their width first (keys computed after, at the new width).
    while (w > this.width) this.coarsen(true);
    this.put(Math.floor((k * w) / this.width), sum, n);
  }

  /** `[key, sum of hundredths, count]` per bucket, for sending to another thread or merging. */
  entries(): Array<[number, number, number]> {
    const out: Array<[number, number, number]> = [];
    this.slots.forEach((slot, k) => {
      out.push([k, this.sums[slot]!, this.counts[slot]!]);
    });
    return out;
  }

  toData(): TimeSeriesData {
    // In slot order, as entries() and merge go; one typed array, which crosses a thread as a copy of its bytes
    // where an array of arrays is cloned object by object.
    const n = this.used;
    const data = new Float64Array(3 * n);
    this.slots.forEach((slot, k) => {
      data[3 * slot] = k;
      data[3 * slot + 1] = this.sums[slot]!;
      data[3 * slot + 2] = this.counts[slot]!;
    });
    return { width: this.width, data };
  }

  /** Doubles the width (once if `once`, else until the buckets fit). */
  private coarsen(once = false): void {
    do {
      // The buckets in slot order, which is their keys' order in `slots` (a new key takes the next slot).
      const n = this.used;
      const keys = new Array<number>(n);
      this.slots.forEach((slot, k) => {
        keys[slot] = k;
      });
      const sums = this.sums.slice(0, n);
      const counts = this.counts.slice(0, n);
      this.width *= 2;
      this.slots.clear();
      this.used = 0;
      for (let i = 0; i < n; i++) this.insert(Math.floor(keys[i]! / 2), sums[i]!, counts[i]!);
    } while (!once && this.used > this.max);
  }

  /** `[bucket start (s since epoch), mean value]`, in time order. */
  points(): Array<[number, number]> {
    // The slots in their keys' order (keys are distinct), without a list of entries to sort.
    const n = this.used;
    const keys = new Float64Array(n);
    this.slots.forEach((slot, k) => {
      keys[slot] = k;
    });
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => keys[a]! - keys[b]!);
    const out = new Array<[number, number]>(n);
    for (let i = 0; i < n; i++) {
      const s = order[i]!;
      out[i] = [ORIGIN + keys[s]! * this.width, Math.round(this.sums[s]! / this.counts[s]!) / 100];
    }
    return out;
  }
}

const ORIGIN = 2 ** 30;
/** TimeSeries.addSortedFresh's buckets (one thread, one call at a time). */
let scratch = new Float64Array(0);

function grow(a: Float64Array): Float64Array {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}

/** A TimeSeries as plain data (what crosses a thread boundary). */
export interface TimeSeriesData {
  width: number;
  /** `key, sum of hundredths, count` of each bucket, in the series' order */
  data: Float64Array;
}
