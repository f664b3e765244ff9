/**
 * Sample lines from engine-source catalog templates (test/fixtures/engine-source/*.json): the template with a
 * value where each placeholder is, for Python (`{expr}`, `%s`), C printf (`%zu`, `%12s`, `%.*s`, `%lld`) and
 * Go fmt (`%v`, `%w`, `%q`, `%t`) formats.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SHARED } from '../../helpers.js';

export interface SourceLog {
  file: string;
  function: string;
  level: string;
  template: string;
  phase: string;
  phase_scope?: string;
  crash?: boolean;
  format?: string;
  versions: string[];
  key?: boolean;
}
export interface SourceRaise {
  file: string;
  function: string;
  exception: string;
  template: string;
  failure_class: string;
  phase: string;
  key?: boolean;
}
export interface SourceCatalog {
  log_lines: SourceLog[];
  raises: SourceRaise[];
  frames: Array<{ file: string; function: string; phase: string }>;
}

export function loadSource(engine: string): SourceCatalog {
  const file = path.join(SHARED, 'engine-source', `${engine}.json`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as SourceCatalog;
}

const CONV =
  /%(?:\([^)]*\))?[-+#0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|ll|[hlLzjt](?=[diouxXeEfFgGcrsap]))?([diouxXeEfFgGcrsap%]|[vwqtT](?![a-zA-Z]))/g;

/** The template with sample values where its placeholders are: a number for numeric formats, else a word. */
export function fill(template: string): string {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if ((c === '{' || c === '}') && template[i + 1] === c) {
      out += c;
      i++;
    } else if (c === '{') {
      let depth = 1;
      let j = i + 1;
      for (; j < template.length && depth > 0; j++) {
        if (template[j] === '{') depth++;
        else if (template[j] === '}') depth--;
      }
      if (depth > 0) {
        out += c;
        continue;
      }
      const inner = template.slice(i + 1, j - 1);
      const spec = /:([^:'"\]]*)$/.exec(inner)?.[1] ?? '';
      if (/[df]$/.test(spec) || /e$/.test(spec)) out += /d$/.test(spec) ? '12' : '1.25';
      else if (inner.endsWith('!r')) out += "'sample'";
      else out += 'sample';
      i = j - 1;
    } else out += c;
  }
  return out.replace(CONV, (m, conv: string) => {
    if (conv === '%') return '%';
    if (/[diouxX]/.test(conv)) return '12';
    if (/[eEfFgG]/.test(conv)) return '1.25';
    if (conv === 'p') return '0x7f0012';
    if (conv === 'c') return 'x';
    if (conv === 'r' || conv === 'q') return "'sample'";
    if (conv === 't') return 'true';
    return m.length > 2 && /\d/.test(m) && !/\d+s$/.test(m) ? '12' : 'sample';
  });
}

/** Literal characters of the template's first line (the generator's MIN_LITERAL test). */
export function literalLength(template: string): number {
  const first = template.split('\n')[0]!;
  return first
    .replace(/\{[^{}]*\}/g, '')
    .replace(CONV, '')
    .replace(/\s+/g, '').length;
}

/** Fewer literal characters than this and the generator skips the template (MIN_LITERAL there). */
export const MIN_LITERAL = 10;
