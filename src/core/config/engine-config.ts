// Turns each engine's config dump into a plain object, already redacted. Every function
// takes the log message (prefix stripped or not), finds its marker, and returns null
// only when the marker is absent; a cut-off dump still yields the fields before the cut.

import { parseCallRepr, parseDictRepr, parseKwargs, parsePyValue } from './pyrepr.js';
import { redactConfig } from './redact.js';

type Config = Record<string, unknown>;

function callAfter(msg: string, marker: string): Config | null {
  const i = msg.indexOf(`${marker}(`);
  if (i < 0) return null;
  const call = parseCallRepr(msg.slice(i));
  return call ? redactConfig(call.fields) : null;
}

/** SGLang: `server_args=ServerArgs(model_path='...', ...)`, possibly cut or missing its `)`. */
export function parseSglangServerArgs(line: string): Config | null {
  return callAfter(line, 'ServerArgs');
}

/** vLLM ≥0.9: `non-default args: {'model': '...', 'tensor_parallel_size': 2}`. */
export function parseVllmNonDefaultArgs(msg: string): Config | null {
  const marker = msg.indexOf('non-default args:');
  const rest = marker >= 0 ? msg.slice(marker) : msg.trimStart();
  const brace = rest.indexOf('{');
  if (brace < 0 || (marker < 0 && brace > 0)) return null;
  const dict = parseDictRepr(rest.slice(brace));
  return dict ? redactConfig(dict) : null;
}

/** vLLM <0.9: `args: Namespace(host=None, port=8000, ...)`. */
export function parseVllmNamespace(msg: string): Config | null {
  return callAfter(msg, 'Namespace');
}

/** vLLM `Initializing a V1 LLM engine (v0.10.2) with config: model='...', dtype=torch.bfloat16, ...`. */
export function parseVllmEngineConfig(msg: string): Config | null {
  const marker = 'with config:';
  const i = msg.indexOf(marker);
  if (i < 0) return null;
  return redactConfig(parseKwargs(msg.slice(i + marker.length)));
}

/** TensorRT-LLM: `PyTorchConfig(use_cuda_graph=True, cuda_graph_batch_sizes=[1, 2], ...)`. */
export function parseTrtllmPyTorchConfig(msg: string): Config | null {
  return callAfter(msg, 'PyTorchConfig');
}

// Rust Debug output: `Some(x)` is just x (pretty-printed it spans lines and ends in a
// trailing comma), `None` is null, and strings use double quotes with Python-like escapes.
function tgiValue(text: string): unknown {
  let v = text.trim();
  for (;;) {
    v = v.replace(/,\s*$/, '');
    const m = /^Some\(([\s\S]*)\)$/.exec(v);
    if (!m) break;
    v = m[1]!.trim();
  }
  return parsePyValue(v);
}

const TGI_FIELD_RE = /^\s*([a-z_][a-z0-9_]*)\s*:(?!:)([\s\S]*)$/;

function tgiField(text: string): [string, unknown] | null {
  const m = TGI_FIELD_RE.exec(text);
  if (!m) return null;
  const name = m[1]!;
  const value = redactConfig({ [name]: tgiValue(m[2]!) })[name];
  return [name, value];
}

// Whether brackets and double quotes close within the text: pretty-printed TGI fields
// such as `max_batch_prefill_tokens: Some(` continue on later lines.
function balanced(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      if (i >= text.length) return false;
    } else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
  }
  return depth === 0;
}

/**
 * One line of TGI's multi-line `Args {` dump, e.g. `    max_batch_prefill_tokens: Some(4096),`.
 * Null when the line is not a field, or opens a value that continues on later lines
 * (join the block and use parseTgiArgs for those).
 */
export function parseTgiArgsField(line: string): [string, unknown] | null {
  const m = TGI_FIELD_RE.exec(line);
  if (!m || /[\r\n]/.test(line.trim())) return null;
  const raw = m[2]!.trim();
  if (raw === '' || !balanced(raw)) return null;
  return tgiField(line);
}

/** TGI's whole `Args { ... }` dump, on one line or as the joined multi-line block. */
export function parseTgiArgs(text: string): Config | null {
  const open = text.indexOf('Args {');
  if (open < 0) return null;
  const out: Config = {};
  let depth = 0;
  let start = open + 'Args {'.length;
  for (let i = start; i <= text.length; i++) {
    const c = text[i];
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      continue;
    }
    if (c === undefined || (depth === 0 && (c === ',' || c === '}'))) {
      const field = tgiField(text.slice(start, i));
      if (field)
        Object.defineProperty(out, field[0], {
          value: field[1],
          enumerable: true,
          writable: true,
          configurable: true,
        });
      if (c !== ',') break;
      start = i + 1;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
  }
  return out;
}
