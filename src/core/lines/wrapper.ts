/**
 * Wrappers no one listed: the text that some other program (an application's own logger, a CI runner, a log
 * collector, a container runtime) prints before the engine's line. We find the engine's own frame further
 * into the line, take what stands before it as the file's wrapper, and learn its *shape* (word runs become
 * `\w+`, blank runs `\s+`, the punctuation stays) so that later lines — traceback frames and config dumps
 * too, which carry the wrapper but no engine frame — are peeled the same way.
 *
 * The learned shape is a plain string kept in the PrefixContext (checkpointed with it); its regex is a cache.
 */

/**
 * Where an engine's own frame can start behind an unknown prefix. Only frames an engine prints (no generic
 * python-logging or ISO stamps, which the wrappers themselves use):
 * - vLLM `LEVEL MM-DD hh:mm:ss [file.py:N]` (vllm/logger.py `_FORMAT`), and the `LEVEL PID [file.py:N]` variant;
 * - SGLang `[YYYY-MM-DD hh:mm:ss TPn]` / `[hh:mm:ss TPn]` (sglang/srt/utils `configure_logger`);
 * - TRT-LLM `[MM/DD/YYYY-hh:mm:ss] [TRT-LLM]` and `[TensorRT-LLM][LEVEL]` (tensorrt_llm/logger.py, C++ logger);
 * - TGI `…Z  LEVEL target: ` (tracing's compact format with its target, research/vllm-and-peers.md §TGI);
 * - llama.cpp `MM.SS.mmm.uuu L ` (common/log.cpp with timestamps);
 * - uvicorn `LEVEL:     ` (uvicorn/logging.py `levelprefix`, padded).
 */
const ANCHOR =
  /(?<![\w.:/-])(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) (?:\d{2}-\d{2} \d{2}:\d{2}:\d{2}|\d+ \[[\w./-]+\.py:\d+\] )|\[(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}|\d{2}:\d{2}:\d{2}(?:\.\d+)?(?: (?:DP|PP|TP|EP|ATTN_CP|MOE_DP)\d+)+\])|\[\d{2}\/\d{2}\/\d{4}-\d{2}:\d{2}:\d{2}\] \[TRT-LLM\]|\[TensorRT-LLM\]\[|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\s+(?:TRACE|DEBUG|INFO|WARN|ERROR)\s+(?:[\w-]+(?:\{[^}]*\})?: )*\w+(?:::\w+)*: |\d+\.\d{2}\.\d{3}\.\d{3} [IWEDT] |(?:DEBUG|INFO|WARNING|ERROR):\s{2,}\S)/;

/** Wrappers longer than this are not looked for: the search stays cheap on long unframed lines. */
export const MAX_WRAPPER = 160;

/**
 * Whether an engine frame could start anywhere in `text` after its first character (no window): a line that has
 * one is read by where it falls, which a line of the same shape with longer numbers may change.
 */
export function frameInside(text: string): boolean {
  const re = new RegExp(ANCHOR.source, 'g');
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m.index >= 1) return true;
    re.lastIndex = m.index + 1;
  }
  return false;
}

/** Where an engine frame starts in `rest` (at `from` or later), or -1. */
export function findInnerFrame(rest: string, from: number): number {
  const head = rest.length > MAX_WRAPPER + 40 ? rest.slice(0, MAX_WRAPPER + 40) : rest;
  const m = ANCHOR.exec(head);
  if (m === null || m.index < from || m.index > MAX_WRAPPER) return -1;
  // A frame after `word: ` is quoted by the message before it, not wrapped: Triton's `ERROR: Failed to create
  // instance: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] …` (backend_model.cc and
  // its model table quote the backend's exception); taking the text before it for a wrapper would peel it off
  // every later line.
  if (m.index > 0 && /[A-Za-z]\w*: $/.test(head.slice(0, m.index))) return -1;
  return m.index;
}

/**
 * The shape of a prefix: word runs → `w`, blank runs → ` ` (the last blank run is kept as printed, so a
 * traceback line's own indentation is not eaten), punctuation as is. `2025-01-01 10:00:00,123 - app - INFO - `
 * → `w-w-w w:w:w,w - w - w - `. null when the prefix has no punctuation (a bare word would match any message).
 */
export function prefixShape(prefix: string): string | null {
  const m = /\s*$/.exec(prefix)!;
  const body = prefix.slice(0, m.index);
  const tail = prefix.slice(m.index);
  const shape = body.replace(/\w+/g, 'w').replace(/\s+/g, ' ');
  // A bare `word: ` would also match `ValueError: ` and `INFO: `: a wrapper has a gutter or bracket, two
  // delimiters, or a stamp.
  const punct = shape.replace(/[\sw]/g, '');
  if (!/[|>[\]]/.test(punct) && punct.length < 2 && !/\d/.test(body)) return null;
  return shape + tail.replace(/\t/g, '\\t');
}

const cache = new Map<string, RegExp>();

/** A wrapper kept as printed (a constant gutter: one host's name, an indentation): `=` and the text. */
export const LITERAL = '=';

/**
 * Line-number columns, which no shape says (a number's width changes, and grep puts no blank after it), by
 * name: `cat -n` and `nl` (`%6d\t`), `grep -n` (`N:` before a matching line, `N-` before a context line),
 * and an editor's or `less -N`'s column (`  12 `).
 */
export const NUMBER_GUTTERS: Readonly<Record<string, RegExp>> = {
  '#cat -n': /^ *\d+\t/,
  '#grep -n': /^\d+[:-]/,
  '#numbered': /^ *\d+ /,
};

/** The regex a learned shape (or a `=literal`, or a named number column) peels with (anchored at the start). */
export function shapeRegex(shape: string): RegExp {
  let re = cache.get(shape);
  if (re) return re;
  const named = NUMBER_GUTTERS[shape];
  if (named) return named;
  if (shape.startsWith(LITERAL)) {
    re = new RegExp(`^${escapeRegex(shape.slice(1))}`);
    cache.set(shape, re);
    return re;
  }
  const tailAt = shape.search(/(?:\\t| )*$/);
  const body = shape.slice(0, tailAt);
  const tail = shape.slice(tailAt).replace(/\\t/g, '\t');
  let src = '^';
  for (const ch of body) {
    if (ch === 'w') src += '\\w+';
    else if (ch === ' ') src += '\\s+';
    else src += escapeRegex(ch);
  }
  src += tail.replace(/\t/g, '\\t');
  re = new RegExp(src);
  if (cache.size > 64) cache.clear();
  cache.set(shape, re);
  return re;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** What a PrefixContext keeps about the file's wrapper. */
export interface WrapperState {
  /**
   * The confirmed wrapper shape (seen before an engine frame on two lines, or a gutter every line of the file's
   * head carries: gutter.ts), or null.
   */
  wrap?: string | null;
  /** A shape seen once, waiting for a second line. */
  wrapSeen?: string | null;
}

/** Records a prefix found before an engine frame; a shape seen on two lines becomes the file's wrapper. */
export function learnWrapper(ctx: WrapperState, prefix: string): void {
  const shape = prefixShape(prefix);
  if (shape === null || shape === ctx.wrap) return;
  if (ctx.wrapSeen === shape) {
    ctx.wrap = shape;
    ctx.wrapSeen = null;
  } else ctx.wrapSeen = shape;
}

/** Length of the learned wrapper at the start of `rest`, or 0. */
export function learnedWrapper(ctx: WrapperState, rest: string): number {
  if (!ctx.wrap) return 0;
  const m = shapeRegex(ctx.wrap).exec(rest);
  return m ? m[0].length : 0;
}
