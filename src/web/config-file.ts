/**
 * firedup.toml: what `firedup serve` listens on and which logs it watches.
 *
 *   port = 7070
 *   host = "127.0.0.1"
 *   ledger = "/var/lib/firedup/ledger.db"
 *   ssh_config = "~/.ssh/config"
 *   ssh_options = ["ProxyJump=bastion"]
 *
 *   [[target]]
 *   name = "glm5-a"
 *   log = "root@gpu-a:/root/sglang.log"
 *   url = "http://127.0.0.1:30000"
 *   pid = 4242
 *
 * A small TOML reader for exactly this subset (comments, `key = value` with basic or literal strings,
 * integers, booleans and one-line arrays of strings, `[[target]]` tables); anything else is an error that
 * names the file and the line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../cli/errors.js';
import { ENGINES, type EngineId } from '../core/types.js';
import type { TargetSpec } from './targets.js';

export interface ServeConfig {
  host?: string;
  port?: number;
  token?: string;
  ledger?: string;
  sshConfig?: string;
  sshOptions?: string[];
  targets: Array<Partial<TargetSpec> & { log: string; line: number }>;
}

type Value = string | number | boolean | string[];

const KEY = /^[A-Za-z0-9_-]+$/;

/** Reads one value starting at `s[0]`; returns it and the rest of the line. */
function readValue(s: string, fail: (why: string) => never): [Value, string] {
  if (s.startsWith('"')) {
    let out = '';
    let i = 1;
    for (; i < s.length && s[i] !== '"'; i++) {
      if (s[i] !== '\\') {
        out += s[i];
        continue;
      }
      const c = s[++i];
      const simple: Record<string, string> = {
        '"': '"',
        '\\': '\\',
        n: '\n',
        t: '\t',
        r: '\r',
        b: '\b',
        f: '\f',
      };
      if (c !== undefined && c in simple) out += simple[c];
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
    const items: string[] = [];
    let rest = s.slice(1).trimStart();
    while (!rest.startsWith(']')) {
      if (rest === '' || rest.startsWith('#')) fail('unterminated array (arrays are one line here)');
      const [v, after] = readValue(rest, fail);
      if (typeof v !== 'string') fail('arrays hold strings only here');
      items.push(v);
      rest = after.trimStart();
      if (rest.startsWith(',')) rest = rest.slice(1).trimStart();
      else if (!rest.startsWith(']')) fail('expected , or ] in the array');
    }
    return [items, rest.slice(1)];
  }
  const m = /^(true|false|[+-]?\d[\d_]*)(?=\s|#|$)/.exec(s);
  if (!m) fail(`not a value: ${s.split(/\s/)[0]} (quote strings: "like this")`);
  const v = m[1]!;
  return [v === 'true' ? true : v === 'false' ? false : Number(v.replace(/_/g, '')), s.slice(v.length)];
}

/** Parses the subset into top-level keys and the `[[target]]` tables, each key with its line. */
export function parseToml(
  text: string,
  file: string,
): {
  top: Map<string, { value: Value; line: number }>;
  targets: Array<{ line: number; keys: Map<string, { value: Value; line: number }> }>;
} {
  const top = new Map<string, { value: Value; line: number }>();
  const targets: Array<{ line: number; keys: Map<string, { value: Value; line: number }> }> = [];
  let current = top;
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const no = i + 1;
    const fail = (why: string): never => {
      throw new UsageError(`${file}:${no}: ${why}`);
    };
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    if (line.startsWith('[')) {
      const m = /^\[\[\s*([A-Za-z0-9_-]+)\s*\]\]\s*(#.*)?$/.exec(line);
      if (!m) fail(`only [[target]] tables are known here, not ${line}`);
      if (m![1] !== 'target') fail(`unknown table [[${m![1]}]] (only [[target]])`);
      const t = { line: no, keys: new Map<string, { value: Value; line: number }>() };
      targets.push(t);
      current = t.keys;
      return;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) fail('expected key = value');
    const key = line.slice(0, eq).trim();
    if (!KEY.test(key)) fail(`bad key ${key} (letters, digits, _ and - only)`);
    if (current.has(key)) fail(`${key} is set twice (first on line ${current.get(key)!.line})`);
    const [value, rest] = readValue(line.slice(eq + 1).trim(), fail);
    const after = rest.trim();
    if (after !== '' && !after.startsWith('#')) fail(`unexpected ${after} after the value`);
    current.set(key, { value, line: no });
  });
  return { top, targets };
}

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p;
}

/** Reads and checks firedup.toml; relative paths (logs, ledger) are relative to the file's directory. */
export function loadServeConfig(file: string): ServeConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a directory'
            : (e as Error).message;
    throw new UsageError(`--config ${file}: ${why}`);
  }
  const { top, targets } = parseToml(text, file);
  const dir = path.dirname(path.resolve(file));
  const at = (line: number, why: string): never => {
    throw new UsageError(`${file}:${line}: ${why}`);
  };
  const str = (e: { value: Value; line: number }, key: string): string =>
    typeof e.value === 'string' ? e.value : at(e.line, `${key} must be a string in "quotes"`);
  const localPath = (p: string) => path.resolve(dir, expandHome(p));
  const cfg: ServeConfig = { targets: [] };
  for (const [key, e] of top) {
    switch (key) {
      case 'host':
        cfg.host = str(e, key);
        break;
      case 'port':
        if (typeof e.value !== 'number' || !Number.isInteger(e.value) || e.value < 0 || e.value > 65535)
          at(e.line, 'port must be a number from 0 to 65535');
        cfg.port = e.value as number;
        break;
      case 'token':
        cfg.token = str(e, key);
        break;
      case 'ledger':
        cfg.ledger = localPath(str(e, key));
        break;
      case 'ssh_config':
        cfg.sshConfig = localPath(str(e, key));
        break;
      case 'ssh_options':
        if (!Array.isArray(e.value)) at(e.line, 'ssh_options must be an array of strings: ["K=V", ...]');
        cfg.sshOptions = e.value as string[];
        break;
      default:
        at(
          e.line,
          `unknown setting ${key} (known: host, port, token, ledger, ssh_config, ssh_options, [[target]])`,
        );
    }
  }
  for (const t of targets) {
    const spec: Partial<TargetSpec> & { line: number } = { line: t.line };
    for (const [key, e] of t.keys) {
      switch (key) {
        case 'name':
          spec.name = str(e, key);
          if (spec.name.trim() === '') at(e.line, 'name is empty');
          break;
        case 'log': {
          const log = str(e, key);
          if (log === '' || log === '-')
            at(e.line, 'log must name a file or an ssh target (user@host:/path)');
          // Remote targets stay as written; a local path is relative to this file.
          spec.log = /^ssh:\/\/|^[^/]*:/.test(log) && !fs.existsSync(localPath(log)) ? log : localPath(log);
          break;
        }
        case 'url': {
          const url = str(e, key);
          if (!/^https?:\/\/[^\s/]+/.test(url)) at(e.line, `url ${url}: not an http:// or https:// URL`);
          spec.url = url;
          break;
        }
        case 'pid':
          if (typeof e.value !== 'number' || !Number.isInteger(e.value) || e.value <= 0)
            at(e.line, 'pid must be a positive whole number');
          spec.pid = e.value as number;
          break;
        case 'engine':
          if (typeof e.value !== 'string' || !(ENGINES as readonly string[]).includes(e.value))
            at(e.line, `engine must be one of ${ENGINES.join(', ')}`);
          spec.engine = e.value as EngineId;
          break;
        default:
          at(e.line, `unknown target setting ${key} (known: name, log, url, pid, engine)`);
      }
    }
    if (spec.log === undefined) at(t.line, '[[target]] needs log = "path or user@host:/path"');
    cfg.targets.push(spec as ServeConfig['targets'][number]);
  }
  return cfg;
}
