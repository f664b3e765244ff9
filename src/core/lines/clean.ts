/**
 * Turns a physical line's bytes into the logical lines a reader sees.
 *
 * A physical line can hold several terminal states separated by `\r`: tqdm refreshes its bar in place,
 * and other processes' log lines can land between two refreshes. We keep the last state of each run of
 * bar refreshes and every non-bar segment, so neither progress nor interleaved log lines are lost.
 */

import { jsonRecordLines } from './json-record.js';

// CSI sequences (colours, cursor moves), OSC titles, and the bare `[1;36m` remnants left when a paste lost
// its ESC bytes. The remnant form requires a digit right after `[` and an `m` right after the digits, so
// `[2026-02-19 ...]` timestamps never match.
// A paste through `cat -v` or a terminal log prints ESC as the two characters `^[`: `^[[0;36m`. The reset
// remnant `[0m` is stripped before a blank too (vLLM colours its process prefix: `[0;36m(Worker pid=1)[0m INFO`).
const ANSI =
  /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\^\[\[[0-9;?]*[ -/]*[@-~]|\[(?:\d{1,3};)*\d{1,3}m(?=\S|$)|\[0?m(?= )/g;

const REMNANT = /\[(?:\d{1,3};)*\d{1,3}m|\^\[/;
const SYSLOG_ESC = /#033\[[0-9;?]*[ -/]*[@-~]/g;
const MD_AUTOLINK = /\[([^\]\n]{1,200})\]\(https?:\/\/[^)\s]*\)/g;

const BAR = /\d+%\s*(?:\||Completed \|)|\|\s*\d+\/\d+ \[|it\/s\]|s\/it\]/;

/** A prefix that a wrapper printed before the bar's `\r` (vLLM's `(Worker_TP0 pid=1) `, compose's `app  | `). */
const LONE_PREFIX = /^(?:\((?:[\w-]+(?: [\w=]+)? )?pid=\d+(?:, ip=[0-9A-Fa-f.:]+)?\) |[\w.-]+\s+\| |\s+)$/;

export function decodeLine(buf: Buffer, start: number, end: number): string {
  return cleanText(buf.toString('utf8', start + bomLength(buf, start, end), end));
}

/**
 * The length of a byte-order mark at `start` (a log written by a Windows tool, or saved from an editor): UTF-8's
 * EF BB BF, or UTF-16's FF FE / FE FF, whose bytes never occur in UTF-8 text. Left in, it became the first
 * line's first characters (`\uFEFF`, or `��`), and the launch's start text, so its fingerprint, changed with
 * the encoding. A UTF-16 log's ASCII reads as text with every other byte a NUL (stripped by cleanText).
 */
function bomLength(buf: Buffer, start: number, end: number): number {
  if (end - start < 2) return 0;
  const a = buf[start];
  const b = buf[start + 1];
  if ((a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff)) return 2;
  return a === 0xef && b === 0xbb && end - start >= 3 && buf[start + 2] === 0xbf ? 3 : 0;
}

/** A line's text without NULs and terminal escapes (what decodeLine makes of bytes; a wrapper's decoded line). */
export function cleanText(text: string): string {
  let out = text;
  if (out.includes('\0')) out = out.replace(/\0+/g, '');
  // rsyslog escapes control characters on receive ($EscapeControlCharactersOnReceive): ESC becomes `#033`, so a
  // colour is `#033[2m` (journald → syslog → CloudWatch and the like)
  if (out.includes('#033[')) out = out.replace(SYSLOG_ESC, '');
  if (out.includes('\x1b') || REMNANT.test(out)) out = out.replace(ANSI, '');
  // The same `cat -v` (or a terminal log) prints a CRLF line's CR as `^M` at its end: not the line's text (a
  // traceback's `in warmup_model^M` names the function `warmup_model`)
  if (out.endsWith('^M')) out = out.slice(0, -2);
  // A web page's rendering copied back as Markdown: text a console or issue renderer auto-linked (`main.rs` reads
  // as a domain) comes back as `[main.rs:329:](http://main.rs/…)`; the text is the line's, the link is not
  if (out.includes('](http')) out = out.replace(MD_AUTOLINK, '$1');
  return out;
}

export function isBarText(s: string): boolean {
  return BAR.test(s);
}

/** Splits a decoded physical line on `\r`, dropping bar states that a later state of the same run replaced. */
// A bar that ends without a newline and another writer's text right after it: a logger line
// (`...336.17it/s][09/17/2025-...`), a Python warning (`/path/file.py:279: UserWarning: ...`), a runtime's abort
// message (`...?it/s]Memory access fault by GPU node-2 ...`). tqdm ends its bar with the rate and `]`
// (tqdm.format_meter: `{n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]`); a postfix is written
// inside the brackets (`, loss=0.1]`), so nothing of the bar's own follows `it/s]`: what does came from elsewhere.
const GLUED = /((?:it\/s|s\/it|\?it\/s)\])(?=\S)/g;

/**
 * llama.cpp's load progress: the loader's default progress callback (src/llama.cpp llama_model_load_from_file_impl,
 * `LLAMA_LOG_CONT(".")` per percent, the newline only at 100 %) leaves a run of dots without a newline when the
 * load fails part-way, and the failure's own line (ggml-cuda's `CUDA error: …`, `ROCm error: …`) lands right after
 * them. Nothing of the dots' own follows them: what starts with a letter came from elsewhere. (Python's elided
 * frames, `...<3 lines>...`, start with `<`.)
 */
const GLUED_DOTS = /^(\.{3,})(?=[A-Za-z])/;

/**
 * KoboldCpp's progress while it runs a request (gpttype_adapter.cpp gpttype_generate: `\rProcessing Prompt [BLAS]
 * (%d / %d tokens)`, `\rGenerating (%d / %d tokens)`), redrawn in place with no newline: a failure's line written
 * next (ggml-cuda's `CUDA error: out of memory`) lands right after its closing `tokens)`.
 */
const GLUED_KCPP = /((?:Processing Prompt(?: \[\w+\])?|Generating) \(\d+ \/ \d+ tokens\))(?=\S)/;

/**
 * A paste whose lines a renderer joined with spaces (a quoted block copied back from a web page): each original
 * line keeps its process prefix (Ray's log_to_driver `(Name pid=N) `, vLLM's `(Worker_TP0 pid=N) `), so the same
 * prefix recurs inside the one line. Where it recurs (three times or more after a blank), the line is cut before each
 * recurrence; a Markdown quote's `> ` before the whole is the paste's, not the first line's.
 */
const FLAT_PREFIX = / (\((?:[A-Za-z][\w-]*(?: [\w=]+)? )?pid=\d+(?:, ip=[0-9A-Fa-f.:x]+)?\)) /g;

function unflatten(text: string): string {
  const seen = new Map<string, number>();
  for (const m of text.matchAll(FLAT_PREFIX)) seen.set(m[1]!, (seen.get(m[1]!) ?? 0) + 1);
  let best: string | null = null;
  for (const [prefix, n] of seen) if (n >= 3 && (best === null || n > seen.get(best)!)) best = prefix;
  if (best === null) return text;
  const head = text.startsWith('> ') ? text.slice(2) : text;
  return head.split(` ${best} `).join(`\r${best} `);
}

export function logicalSegments(text: string): string[] {
  // a JSON record holding a traceback with escaped newlines: the lines it encodes (json-record.ts)
  if (text.includes('\\n')) {
    const rec = jsonRecordLines(text);
    if (rec !== null) return rec;
  }
  if (text.includes('pid=') && text.length > 200) text = unflatten(text);
  if (text.charCodeAt(0) === 46 && GLUED_DOTS.test(text)) text = text.replace(GLUED_DOTS, '$1\r');
  if (text.includes(' tokens)') && GLUED_KCPP.test(text)) text = text.replace(GLUED_KCPP, '$1\r');
  if (GLUED.test(text)) {
    GLUED.lastIndex = 0;
    text = text.replace(GLUED, '$1\r');
  }
  GLUED.lastIndex = 0;
  if (!text.includes('\r')) return [text.trimEnd()];
  const parts = text.split('\r');
  let prefix = '';
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    let p = parts[i]!;
    if (p.trim() === '') {
      if (i === 0 && p.length > 0 && LONE_PREFIX.test(p)) prefix = p;
      continue;
    }
    if (i === 0 && LONE_PREFIX.test(p)) {
      prefix = p;
      continue;
    }
    if (prefix && i > 0 && !p.startsWith(prefix)) p = prefix + p;
    const next = nextNonEmpty(parts, i + 1);
    if (next !== null && isBarText(p) && isBarText(next)) continue;
    out.push(p.trimEnd());
  }
  return out.length ? out : [''];
}

function nextNonEmpty(parts: string[], from: number): string | null {
  for (let j = from; j < parts.length; j++) if (parts[j]!.trim() !== '') return parts[j]!;
  return null;
}
