/**
 * Sample values for an engine-source template (test/fixtures/engine-source/*.json): what the engine would print
 * for it. Shared by the catalog tests of the engines read after SGLang and vLLM (engine-catalog-peers.test.ts).
 */

export const PERCENT = /%(?:\([^)]*\))?[-+#0]*(?:\d+|\*)?(?:\.(\d+))?[hlL]?([diouxXeEfFgGcrsap%])/g;

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
      else if (inner.endsWith('!r') || inner.endsWith(':?')) out += "'sample'";
      else out += 'sample';
      i = j - 1;
    } else out += c;
  }
  return out.replace(PERCENT, (m, _prec, conv: string) => {
    if (conv === '%') return '%';
    if (/[diouxX]/.test(conv)) return '12';
    if (/[eEfFgG]/.test(conv)) return '1.25';
    if (conv === 'r') return "'sample'";
    if (conv === 'p') return '0x7f00';
    return m.length > 2 && /\d/.test(m) ? '12' : 'sample';
  });
}

/** Literal characters of a template's first line (whitespace aside): the generator's MIN_LITERAL test. */
export function literalLength(template: string): number {
  const first = template.split('\n')[0]!;
  return first
    .replace(/\{[^{}]*\}/g, '')
    .replace(PERCENT, '')
    .replace(/\s+/g, '').length;
}
