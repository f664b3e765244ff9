/**
 * What the live page remembers of each watched target, from the event stream: bounded ring buffers of the
 * load progress, the generation throughput and each GPU's memory and utilisation. The first event of a target
 * (and each event after) seeds them with the curves its report already holds (the progress bar's and the
 * throughput lines' own points, on the log's clock); the GPUs have no history but the one this page saw.
 */

/** Points kept per series: an hour at one event a second is more than a card can show. */
export const CAP = 600;

/** A fixed-size buffer of [x, y] points, oldest dropped first; x never goes back. */
export class Ring {
  constructor(cap = CAP) {
    this.cap = cap;
    this.xs = [];
    this.ys = [];
  }
  push(x, y) {
    if (x === null || y === null || !Number.isFinite(x) || !Number.isFinite(y)) return;
    const n = this.xs.length;
    if (n && x < this.xs[n - 1]) return;
    if (n && x === this.xs[n - 1]) {
      this.ys[n - 1] = y;
      return;
    }
    this.xs.push(x);
    this.ys.push(y);
    if (this.xs.length > this.cap) {
      this.xs.splice(0, this.xs.length - this.cap);
      this.ys.splice(0, this.ys.length - this.cap);
    }
  }
  get length() {
    return this.xs.length;
  }
  last() {
    return this.xs.length ? this.ys[this.ys.length - 1] : null;
  }
}

/** Target name → its history; a new launch in the log starts a new one. */
const histories = new Map();

function fresh(key) {
  return { key, load: new Ring(), loadTotal: null, loadWhat: null, tok: new Ring(), gpus: new Map() };
}

/** Adds what the target's snapshot `t` tells to its history; returns that history. */
export function remember(t) {
  const l = t.launch;
  const key = `${t.verdict?.launch ?? ''}|${l?.startLine ?? ''}|${l?.startTime ?? ''}`;
  let hist = histories.get(t.name);
  if (!hist || hist.key !== key) {
    hist = fresh(key);
    histories.set(t.name, hist);
  }
  const p = l?.progress ?? null;
  if (p) {
    if (hist.loadTotal !== p.total || hist.loadWhat !== p.what) {
      hist.load = new Ring();
      hist.loadTotal = p.total;
      hist.loadWhat = p.what;
    }
    // The bar's own points (log clock); without timestamps, the times this page heard of them.
    if (p.series?.length) for (const [x, y] of p.series.slice(-CAP)) hist.load.push(x, y);
    else hist.load.push(t.updatedAt, p.done);
  }
  const thr = l?.throughput ?? null;
  if (thr?.series?.length) for (const [x, y] of thr.series.slice(-CAP)) hist.tok.push(x, y);
  else if (t.verdict?.throughput !== null && t.verdict?.throughput !== undefined)
    hist.tok.push(t.updatedAt, t.verdict.throughput);
  for (const g of t.gpus ?? []) {
    let gh = hist.gpus.get(g.index);
    if (!gh) {
      gh = { mem: new Ring(120), util: new Ring(120) };
      hist.gpus.set(g.index, gh);
    }
    if (g.memTotalBytes) gh.mem.push(t.updatedAt, g.memUsedBytes / g.memTotalBytes);
    if (g.util !== null && g.util !== undefined) gh.util.push(t.updatedAt, g.util);
  }
  return hist;
}

/** Forgets targets no longer listed (the page was left, or the server watches others now). */
export function forget(keep) {
  for (const name of [...histories.keys()]) if (!keep.has(name)) histories.delete(name);
}
