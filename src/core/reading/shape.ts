/**
 * The shape of a log message: what stays the same when the engine prints it again with other values. Two
 * lines of one log call (`Loaded 12 layers in 3.2s`, `Loaded 80 layers in 41.0s`) share a shape, so
 * unrecognised lines can be counted per log call instead of per line.
 */

const MAX_SHAPE = 240;

/** Placeholders, applied in order: the wider patterns first, so a path's digits do not become `<n>`. */
const RULES: Array<[RegExp, string]> = [
  [/'[^']*'|"[^"]*"|`[^`]*`/g, '<str>'],
  [/\b[a-z][\w+.-]*:\/\/\S+/gi, '<url>'],
  [/(?:~|\.{1,2})?(?:\/[\w.@+-]+){2,}\/?/g, '<path>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  // Hashes, ids and uuids: long runs of hex that hold at least one digit.
  [/\b(?=[0-9a-f-]*\d)[0-9a-f]{8,}(?:-[0-9a-f]{4,})*\b/gi, '<hex>'],
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?Z?/g, '<time>'],
  [/\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g, '<time>'],
  // A sign only where it cannot be a hyphen (`Qwen3-8B`, `S-2.1` keep theirs).
  [/(?:(?<!\w)[-+])?\b\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi, '<n>'],
];

export function lineShape(msg: string): string {
  let s = msg.trim();
  for (const [re, to] of RULES) s = s.replace(re, to);
  // Runs of numbers (`[<n>, <n>, <n>]`, `<n>/<n>`) are one value whatever their length.
  s = s.replace(/<n>(?:[\s,/x*:-]+<n>)+/g, '<n>').replace(/\s+/g, ' ');
  return s.length > MAX_SHAPE ? `${s.slice(0, MAX_SHAPE - 1)}…` : s;
}
