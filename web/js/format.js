/**
 * Numbers, times, durations and ids as the pages write them.
 */

const NBSP = '\u00a0';

/** Epoch seconds → `2026-02-19 13:02:53` (UTC: the log's own clock, as the CLI prints it). */
export function fmtTs(ts) {
  if (ts === null || ts === undefined) return '–';
  return new Date(ts * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

export function fmtClock(ts) {
  return ts === null || ts === undefined ? '–' : new Date(ts * 1000).toISOString().slice(11, 19);
}

export function fmtDur(sec) {
  if (sec === null || sec === undefined || !Number.isFinite(sec)) return '–';
  if (sec < 10 && sec % 1 !== 0) return `${sec.toFixed(1)}${NBSP}s`;
  if (sec < 60) return `${Math.round(sec)}${NBSP}s`;
  const r = Math.round(sec);
  if (r < 3600) return `${Math.floor(r / 60)}m${String(r % 60).padStart(2, '0')}s`;
  return `${Math.floor(r / 3600)}h${String(Math.floor((r % 3600) / 60)).padStart(2, '0')}m`;
}

/** `1993.22` → `1,993.2`: fixed decimals, thousands separated (Intl is several times slower per call). */
export function fmtNum(x, digits = 0) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  const [int, frac] = x.toFixed(digits).split('.');
  return frac
    ? `${int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${frac}`
    : int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function fmtGiB(bytes) {
  return bytes === null || bytes === undefined ? '–' : (bytes / 2 ** 30).toFixed(1);
}

/** Config values as the CLI prints them (Python's spelling: the configs come from Python servers). */
export function fmtVal(v) {
  if (v === undefined) return '(absent)';
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function shortId(id) {
  return String(id).slice(0, 8);
}

export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * A long name cut in the middle, its start (the org) and end (the variant) kept:
 * `deepseek-ai/DeepSeek-V3-0324-FP8` → `deepseek-ai/DeepSe…-V3-0324-FP8`. The whole name belongs in a title.
 */
export function middleCut(name, max = 31, tail = 12) {
  const str = String(name ?? '');
  if (str.length <= max) return str;
  return `${str.slice(0, max - tail - 1)}…${str.slice(str.length - tail)}`;
}
