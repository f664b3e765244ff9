// Tolerant reader for the Python repr text that inference servers print: SGLang's
// `ServerArgs(...)` dump, vLLM's config line and argparse `Namespace(...)`, TRT-LLM's
// dataclass reprs. Log lines are arbitrary (cut, interleaved, hand-edited), so nothing
// here throws: whatever cannot be read comes back as its trimmed source text.

// Nesting beyond this is not a config any engine prints; the cap keeps hostile input
// from exhausting the stack.
const MAX_DEPTH = 200;
const MAX_ANGLE_REPR = 1000;

// Private signal for "this value is not well formed"; never escapes this module.
class ParseFail {}
const FAIL = new ParseFail();

// Where a bare (unquoted) token is read decides which characters end it.
type Ctx = 'top' | 'item' | 'key';

const CALL_RE = /[A-Za-z_][\w.]*\(/y;
const KWARG_RE = /[A-Za-z_]\w*[ \t]*=(?!=)/y;
const FIELD_RE = /\s*([A-Za-z_]\w*)[ \t]*=(?!=)/y;
const PARTIAL_NAME_RE = /\s*\w*\s*$/y;
const PREFIX_RE = /[rRbBuUfF]{1,2}(?=['"])/y;
const NUMBER_RE = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', a: '\x07' };

/** Assigns without letting a `__proto__` key from a log line replace the prototype. */
function setField(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Bare values (vLLM's `served_model_name=Bob's-model`) may hold apostrophes, so a quote
// starts a string only where a Python value could start: after `=([{,:`, optionally
// behind an r/b/u/f prefix. Otherwise one stray apostrophe would swallow the line.
function opensString(s: string, i: number): boolean {
  let j = i - 1;
  for (let k = 0; k < 2 && j >= 0 && 'rRbBuUfF'.includes(s[j]!); k++) j--;
  while (j >= 0 && (s[j] === ' ' || s[j] === '\t')) j--;
  return j < 0 || '=([{,:'.includes(s[j]!);
}

/** Index just past the string that starts at `i`, or -1 when it is never closed. */
function skipString(s: string, i: number): number {
  const q = s[i];
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === q) return j + 1;
  }
  return -1;
}

function classifyBare(t: string): unknown {
  if (t === 'None' || t === 'null') return null;
  if (t === 'True' || t === 'true') return true;
  if (t === 'False' || t === 'false') return false;
  // JSON has no Infinity/NaN, so these stay strings that a report can still print.
  if (/^[-+]?inf$/.test(t)) return t.startsWith('-') ? '-inf' : 'inf';
  if (/^[-+]?nan$/.test(t)) return 'nan';
  if (NUMBER_RE.test(t)) {
    const n = Number(t);
    // A 20-digit id would silently lose digits as a number; the text is more honest.
    if (/^[-+]?\d+$/.test(t) && !Number.isSafeInteger(n)) return t;
    return n;
  }
  return t;
}

class Parser {
  pos = 0;
  private depth = 0;

  constructor(readonly s: string) {}

  ws(): void {
    const s = this.s;
    while (this.pos < s.length && isSpace(s.charCodeAt(this.pos))) this.pos++;
  }

  value(ctx: Ctx): unknown {
    this.ws();
    const s = this.s;
    if (this.pos >= s.length) throw FAIL;
    const c = s[this.pos];
    if (c === '[') return this.seq(']');
    if (c === '(') return this.seq(')');
    if (c === '{') return this.brace();
    if (c === "'" || c === '"') return this.str(false);
    PREFIX_RE.lastIndex = this.pos;
    const pre = PREFIX_RE.exec(s);
    if (pre) {
      this.pos += pre[0].length;
      return this.str(/[rR]/.test(pre[0]));
    }
    CALL_RE.lastIndex = this.pos;
    const call = CALL_RE.exec(s);
    if (call) {
      this.pos += call[0].length;
      return this.call();
    }
    return this.bare(ctx);
  }

  /** Reads comma-separated entries up to `close`; `open` is already consumed. */
  private entries(close: string, entry: () => void): void {
    if (++this.depth > MAX_DEPTH) throw FAIL;
    for (;;) {
      this.ws();
      if (this.s[this.pos] === close) break;
      entry();
      this.ws();
      if (this.s[this.pos] === ',') this.pos++;
      else if (this.s[this.pos] !== close) throw FAIL;
    }
    this.pos++;
    this.depth--;
  }

  private seq(close: string): unknown[] {
    this.pos++;
    const items: unknown[] = [];
    this.entries(close, () => items.push(this.value('item')));
    return items;
  }

  // `{` opens a dict or a set; the first entry tells which.
  private brace(): unknown {
    this.pos++;
    const obj: Record<string, unknown> = {};
    const set: unknown[] = [];
    let isDict: boolean | undefined;
    this.entries('}', () => {
      const start = this.pos;
      const key = this.value('key');
      const keyText = this.s.slice(start, this.pos).trim();
      this.ws();
      const pair = this.s[this.pos] === ':';
      isDict ??= pair;
      if (pair !== isDict) throw FAIL;
      if (!pair) {
        set.push(key);
        return;
      }
      this.pos++;
      // Keys become strings; the raw text keeps `1.0` or `None` as written.
      setField(obj, typeof key === 'string' ? key : keyText, this.value('item'));
    });
    return isDict === false ? set : obj;
  }

  // `Name(a=1, b=Other(c=2))` becomes its keyword fields; the class name is dropped
  // because consumers look fields up by name, and positional args go to `_args`.
  private call(): Record<string, unknown> {
    const fields: Record<string, unknown> = {};
    const args: unknown[] = [];
    this.entries(')', () => {
      KWARG_RE.lastIndex = this.pos;
      const kw = KWARG_RE.exec(this.s);
      if (!kw) {
        args.push(this.value('item'));
        return;
      }
      this.pos += kw[0].length;
      setField(fields, kw[0].slice(0, -1).trim(), this.value('item'));
    });
    if (args.length > 0) fields._args = args;
    return fields;
  }

  private str(raw: boolean): string {
    const s = this.s;
    const q = s[this.pos];
    let out = '';
    let i = this.pos + 1;
    for (;;) {
      // Copy plain runs in one slice so 10 KB strings stay cheap.
      let j = i;
      while (j < s.length && s[j] !== q && s[j] !== '\\') j++;
      out += s.slice(i, j);
      if (j >= s.length) throw FAIL;
      if (s[j] === q) {
        this.pos = j + 1;
        return out;
      }
      if (j + 1 >= s.length) throw FAIL;
      if (raw) {
        out += s.slice(j, j + 2);
        i = j + 2;
      } else {
        const [text, len] = decodeEscape(s, j + 1);
        out += text;
        i = j + 1 + len;
      }
    }
  }

  private bare(ctx: Ctx): unknown {
    const s = this.s;
    const start = this.pos;
    // `<function f at 0x7f..>` and `<Enum.X: (2, 1)>` may hold commas and colons. Such
    // reprs are short; the bound keeps `[<, <, <...` from going quadratic.
    if (s[this.pos] === '<') {
      let d = 0;
      for (let i = this.pos; i < Math.min(s.length, this.pos + MAX_ANGLE_REPR); i++) {
        if (s[i] === '<') d++;
        else if (s[i] === '>' && --d === 0) {
          this.pos = i + 1;
          break;
        }
      }
    }
    let d = 0;
    while (this.pos < s.length) {
      const c = s[this.pos]!;
      if ((c === "'" || c === '"') && opensString(s, this.pos)) {
        const end = skipString(s, this.pos);
        this.pos = end < 0 ? s.length : end;
        continue;
      }
      if (c === '(' || c === '[' || c === '{') d++;
      else if (c === ')' || c === ']' || c === '}') {
        if (d === 0) break;
        d--;
      } else if (d === 0 && ctx !== 'top' && (c === ',' || (ctx === 'key' && c === ':'))) break;
      this.pos++;
    }
    const text = s.slice(start, this.pos).trim();
    if (text === '') throw FAIL;
    return classifyBare(text);
  }
}

/** Decodes the escape whose letter is at `i`; returns the text and how many chars it used. */
function decodeEscape(s: string, i: number): [string, number] {
  const e = s[i]!;
  const simple = ESCAPES[e];
  if (simple !== undefined) return [simple, 1];
  if ('\\\'"/'.includes(e)) return [e, 1];
  if (e === '\n') return ['', 1]; // a line continuation
  if (e >= '0' && e <= '7') {
    const m = /^[0-7]{1,3}/.exec(s.slice(i, i + 3))!;
    return [String.fromCharCode(parseInt(m[0], 8)), m[0].length];
  }
  const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
  const hex = s.slice(i + 1, i + 1 + width);
  if (width > 0 && hex.length === width && /^[0-9a-fA-F]+$/.test(hex)) {
    const cp = parseInt(hex, 16);
    if (cp <= 0x10ffff) return [String.fromCodePoint(cp), 1 + width];
  }
  // Python keeps unknown escapes (`\d` in a regex string) as written.
  return [`\\${e}`, 1];
}

/** Parses one Python literal or repr; anything it cannot read comes back as trimmed text. */
export function parsePyValue(text: string): unknown {
  const p = new Parser(text);
  try {
    const v = p.value('top');
    p.ws();
    if (p.pos === text.length) return v;
  } catch {
    // Fall through: an unreadable value is still worth showing verbatim.
  }
  return text.trim();
}

// One linear pass: a field starts at the beginning or after a top-level `,` followed by
// `name=`. A top-level comma not followed by `name=` belongs to the value, which is how
// vLLM's unquoted values (`served_model_name=a, b`) survive.
function scanKwargs(s: string, start: number): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  let name: string | null = null;
  let valueStart = start;
  const fieldAt = (at: number): RegExpExecArray | null => {
    FIELD_RE.lastIndex = at;
    return FIELD_RE.exec(s);
  };
  const finish = (end: number, complete: boolean): void => {
    if (name === null) return;
    const raw = s.slice(valueStart, end);
    // A value cut off mid-string or mid-bracket is kept as text rather than guessed at.
    setField(fields, name, complete ? parsePyValue(raw) : raw.trim());
    name = null;
  };

  const first = fieldAt(start);
  if (first) {
    name = first[1]!;
    valueStart = start + first[0].length;
  }
  let i = valueStart;
  let depth = 0;
  while (i < s.length) {
    const c = s[i]!;
    if ((c === "'" || c === '"') && opensString(s, i)) {
      const end = skipString(s, i);
      if (end < 0) {
        finish(s.length, false);
        return fields;
      }
      i = end;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) {
        finish(i, true);
        return fields;
      }
      depth--;
    } else if (c === ',' && depth === 0) {
      const next = fieldAt(i + 1);
      if (next) {
        finish(i, true);
        name = next[1]!;
        i = valueStart = i + 1 + next[0].length;
        continue;
      }
      // vLLM ends its config line with `, `, and a line cut inside the next name
      // (`..., tp_si`) leaves a stub: neither belongs to this value.
      PARTIAL_NAME_RE.lastIndex = i + 1;
      if (PARTIAL_NAME_RE.test(s)) break;
    }
    i++;
  }
  finish(i, depth === 0);
  return fields;
}

/** Parses `a=1, b='x', c=Foo(d=[1, 2])`, keeping what precedes a cut-off end. */
export function parseKwargs(body: string): Record<string, unknown> {
  return scanKwargs(body, 0);
}

/** Parses `Name(a=1, ...)`; a missing final `)` (a cut line) is tolerated. */
export function parseCallRepr(text: string): { name: string; fields: Record<string, unknown> } | null {
  const m = /^\s*([A-Za-z_][\w.]*)\(/.exec(text);
  if (!m) return null;
  return { name: m[1]!, fields: scanKwargs(text, m[0].length) };
}

/** Parses `{'k': v, ...}`; if the text is cut, keeps the complete entries and the last one as text. */
export function parseDictRepr(text: string): Record<string, unknown> | null {
  const t = text.trim();
  if (!t.startsWith('{')) return null;
  const whole = parsePyValue(t);
  if (isPlainObject(whole)) return whole;
  if (Array.isArray(whole)) return null;
  const out: Record<string, unknown> = {};
  const p = new Parser(t);
  p.pos = 1;
  try {
    for (;;) {
      p.ws();
      if (p.pos >= t.length || t[p.pos] === '}') break;
      const keyStart = p.pos;
      const key = p.value('key');
      const keyText = t.slice(keyStart, p.pos).trim();
      p.ws();
      if (t[p.pos] !== ':') break;
      p.pos++;
      const valueStart = p.pos;
      const name = typeof key === 'string' ? key : keyText;
      let value: unknown;
      try {
        value = p.value('item');
      } catch {
        setField(out, name, t.slice(valueStart).trim());
        break;
      }
      setField(out, name, value);
      p.ws();
      if (t[p.pos] !== ',') break;
      p.pos++;
    }
  } catch {
    // A broken key ends the dict; the entries before it are still good.
  }
  return out;
}
