/**
 * A small TOML reader for firedup's own files (firedup.toml, sweep files): comments, `key = value` with basic
 * or literal strings, integers, floats, booleans and one-line arrays of those, single `[table]` sections and
 * `[[array]]` tables, each only where the caller allows it. Anything else is an error that names the file and
 * the line: a config file is written by hand, and "line 12: ..." is what its author needs.
 */
import { UsageError } from '../../errors.js';

export type Scalar = string | number | boolean;
export type Value = Scalar | Scalar[];

export interface Entry {
  value: Value;
  line: number;
}

export type Keys = Map<string, Entry>;

export interface TomlDoc {
  top: Keys;
  /** `[name]` sections, each once. */
  tables: Map<string, { line: number; keys: Keys }>;
  /** `[[name]]` tables in the order written. */
  arrays: Map<string, Array<{ line: number; keys: Keys }>>;
}

export interface TomlShape {
  /** Names allowed as `[name]`. */
  tables?: readonly string[];
  /** Names allowed as `[[name]]`. */
  arrays?: readonly string[];
}

const KEY = /^[A-Za-z0-9_-]+$/;
/** A quoted key: `"--ctx-size" = ...` (a flag written as the engine spells it). */
const QUOTED_KEY = /^"([^"\\]+)"$|^'([^']+)'$/;

const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
};

/** Reads one value starting at `s[0]`; returns it and the rest of the line. */
function readValue(s: string, fail: (why: string) => never, inArray = false): [Value, string] {
  if (s.startsWith('"')) {
    let out = '';
    let i = 1;
    for (; i < s.length && s[i] !== '"'; i++) {
      if (s[i] !== '\\') {
        out += s[i];
        continue;
      }
      const c = s[++i];
      if (c !== undefined && c in ESCAPES) out += ESCAPES[c];
      else if (c === 'u' || c === 'U') {
        const len = c === 'u' ? 4 : 8;
        const hex = s.slice(i + 1, i + 1 + len);
        if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== len) fail(`bad \\${c} escape`);
        const code = Number.parseInt(hex, 16);
        // TOML allows Unicode scalar values only: no surrogates, nothing past U+10FFFF.
        if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
          fail(`\\${c}${hex} is not a Unicode scalar value (at most 10FFFF, no surrogates D800–DFFF)`);
        out += String.fromCodePoint(code);
        i += len;
      } else fail(`bad escape \\${c ?? ''} in a string`);
    }
    if (i >= s.length) fail('unterminated string (strings are one line, in "double" or \'single\' quotes)');
    return [out, s.slice(i + 1)];
  }
  if (s.startsWith("'")) {
    const end = s.indexOf("'", 1);
    if (end < 0) fail('unterminated string (strings are one line, in "double" or \'single\' quotes)');
    return [s.slice(1, end), s.slice(end + 1)];
  }
  if (s.startsWith('[')) {
    if (inArray) fail('arrays of arrays are not supported here (use [[table]]s for lists of variants)');
    const items: Scalar[] = [];
    let rest = s.slice(1).trimStart();
    while (!rest.startsWith(']')) {
      if (rest === '' || rest.startsWith('#')) fail('unterminated array (arrays are one line here)');
      const [v, after] = readValue(rest, fail, true);
      items.push(v as Scalar);
      rest = after.trimStart();
      if (rest.startsWith(',')) rest = rest.slice(1).trimStart();
      else if (!rest.startsWith(']')) fail('expected , or ] in the array');
    }
    return [items, rest.slice(1)];
  }
  const m = /^(true|false|[+-]?\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)(?=\s|#|,|\]|$)/.exec(s);
  if (!m) fail(`not a value: ${s.split(/[\s,\]]/)[0]} (quote strings: "like this")`);
  const v = m![1]!;
  return [v === 'true' ? true : v === 'false' ? false : Number(v.replace(/_/g, '')), s.slice(v.length)];
}

/** Parses the subset; `shape` says which `[table]` and `[[array]]` names the file may have. */
export function parseToml(text: string, file: string, shape: TomlShape = {}): TomlDoc {
  const doc: TomlDoc = { top: new Map(), tables: new Map(), arrays: new Map() };
  const tables = shape.tables ?? [];
  const arrays = shape.arrays ?? [];
  const known = () =>
    [...tables.map((t) => `[${t}]`), ...arrays.map((a) => `[[${a}]]`)].join(', ') || 'none here';
  let current = doc.top;
  text.split(/\r?\n/).forEach((raw, i) => {
    const no = i + 1;
    const fail = (why: string): never => {
      throw new UsageError(`${file}:${no}: ${why}`);
    };
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    if (line.startsWith('[')) {
      const arr = /^\[\[\s*([A-Za-z0-9_-]+)\s*\]\]\s*(#.*)?$/.exec(line);
      const tab = /^\[\s*([A-Za-z0-9_-]+)\s*\]\s*(#.*)?$/.exec(line);
      if (arr) {
        if (!arrays.includes(arr[1]!)) fail(`only ${known()} tables are known here, not ${line}`);
        const t = { line: no, keys: new Map() as Keys };
        const list = doc.arrays.get(arr[1]!) ?? [];
        list.push(t);
        doc.arrays.set(arr[1]!, list);
        current = t.keys;
        return;
      }
      if (tab) {
        if (!tables.includes(tab[1]!)) fail(`only ${known()} tables are known here, not ${line}`);
        const seen = doc.tables.get(tab[1]!);
        if (seen) fail(`[${tab[1]}] appears twice (first on line ${seen.line})`);
        const t = { line: no, keys: new Map() as Keys };
        doc.tables.set(tab[1]!, t);
        current = t.keys;
        return;
      }
      fail(`only ${known()} tables are known here, not ${line}`);
    }
    const eq = line.startsWith('"') || line.startsWith("'") ? line.indexOf('=', 1) : line.indexOf('=');
    if (eq <= 0) fail('expected key = value');
    let key = line.slice(0, eq).trim();
    const q = QUOTED_KEY.exec(key);
    if (q) key = q[1] ?? q[2]!;
    else if (!KEY.test(key)) fail(`bad key ${key} (letters, digits, _ and - only, or "quoted")`);
    if (current.has(key)) fail(`${key} is set twice (first on line ${current.get(key)!.line})`);
    const [value, rest] = readValue(line.slice(eq + 1).trim(), fail);
    const after = rest.trim();
    if (after !== '' && !after.startsWith('#')) fail(`unexpected ${after} after the value`);
    current.set(key, { value, line: no });
  });
  return doc;
}
