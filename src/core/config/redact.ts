// Secrets are removed when a line is parsed, so nothing downstream (reports, JSON
// output, pasted evidence) can leak them. SGLang prints `api_key`, `admin_api_key` and
// `ssl_keyfile_password` in clear text; vLLM prints `api_key` in its args.

export const REDACTED = '<redacted>';

const wordSet = (text: string) => new Set(text.trim().split(/\s+/));

// Words that make a name secret wherever they appear in it.
const SECRET_WORDS = wordSet(
  'password passwd pwd passphrase secret secrets credential credentials cred creds apikey apikeys authorization cookie',
);
// Run-together names (`pgpassword`, `dbsecret`, `MYSQL_PWD` is split already): these stems inside one word.
const SECRET_STEMS = /passw|secret|credential|apikey/;
// `key` is secret only in these pairs: `key_size`, `cache_key` and `hotkeys` are not.
const KEY_QUALIFIERS = wordSet(`api access secret private encryption signing master license hmac auth
  client session subscription service account storage sas ssh jwt app admin wandb openai anthropic hf
  huggingface github gh gitlab aws gcp azure stripe slack cohere mistral groq together replicate pinecone
  langsmith langchain comet neptune mlflow datadog dd sentry deepseek nvidia nvapi ngc fireworks perplexity
  xai grok google gemini voyage jina tavily serper openrouter anyscale deepinfra novita dashscope moonshot zhipu`);
// A trailing `_token` is a credential (`hf_token`, `auth_token`) unless it names a
// vocabulary token or a count (`eos_token`, `max_token`).
const TOKEN_VOCABULARY = wordSet(`bos eos pad unk sep cls mask image video audio vision special stop start
  end begin think tool first last next new draft placeholder max min num per each total input output
  prompt generated cached decode prefill reasoning im bot eot default`);
// Names ending like this hold where a secret lives (`password_file`), not the secret.
const REFERENCE_SUFFIXES = wordSet('file path dir name env var type mode size len length');

function words(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

// The same few hundred names (config keys, flags) are asked about again and again: remember the answers.
const secretKeys = new Map<string, boolean>();
const SECRET_KEYS_MAX = 4096;

/**
 * An environment variable named `<VENDOR>_KEY` (`DEEPSEEK_KEY`, `MY_SERVICE_KEYS`): the convention for an API key
 * whatever the vendor, where a lower-case `cache_key` or `sort_key` in a config is a name, not a credential.
 */
const ENV_KEY = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_KEYS?$/;

/** True for names whose value is a credential (`api_key`, `HF_TOKEN`, `--api-key`, `apiKey`). */
export function isSecretKey(key: string): boolean {
  let secret = secretKeys.get(key);
  if (secret === undefined) {
    secret = ENV_KEY.test(key) || secretWords(words(key));
    if (secretKeys.size >= SECRET_KEYS_MAX) secretKeys.clear();
    secretKeys.set(key, secret);
  }
  return secret;
}

function secretWords(w: string[]): boolean {
  const last = w[w.length - 1];
  if (last === undefined) return false;
  if (w.length > 1 && REFERENCE_SUFFIXES.has(last)) return false;
  if (w.some((x) => SECRET_WORDS.has(x) || SECRET_STEMS.test(x))) return true;
  // `db_pass`, `pass=`: a pass at the end is a password; `pass_config` (compiler passes) is not.
  if (last === 'pass') return true;
  for (let i = 1; i < w.length; i++)
    if ((w[i] === 'key' || w[i] === 'keys') && KEY_QUALIFIERS.has(w[i - 1]!)) return true;
  if (last === 'token' || last === 'auth') return w.length === 1 || !TOKEN_VOCABULARY.has(w[w.length - 2]!);
  return false;
}

// Empty and "not set" values stay visible: a user wants to see that no key was set, and
// a boolean (`hf_token=True`: use the cached login) reveals nothing.
function isUnset(v: unknown): boolean {
  if (v === null || v === undefined || v === '' || v === 'None' || typeof v === 'boolean') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

/** Deep copy with secret-keyed values replaced by REDACTED and known token shapes masked in strings. */
export function redactConfig<T>(value: T): T {
  return copy(value, 0) as T;
}

function copy(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return redactText(v);
  // Parsed configs are shallow; the cap only guards against a cyclic object.
  if (depth > 100 || typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map((x) => copy(x, depth + 1));
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const val = isSecretKey(k) && !isUnset(x) ? REDACTED : copy(x, depth + 1);
    // defineProperty so a `__proto__` key stays a plain field (for the others, plain assignment is the same).
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: val, enumerable: true, writable: true, configurable: true });
    else out[k] = val;
  }
  return out;
}

// The lookbehinds make each match start at the beginning of a name, which keeps the scan
// linear on 20 KB lines and stops `--api-key` from also matching as `key`.
const CLI_RE = /(?<![\w-])--([A-Za-z][\w-]*)(?:=|[ \t]+)/g;
const KEYED_RE = /(?<![\w-])([A-Za-z_][\w-]*)['"]?[ \t]*[=:][ \t]*/g;
const BEARER_RE = /\b(Bearer[ \t]+)[A-Za-z0-9._~+/=-]{8,}/g;
const SCHEME_RE = /^(Bearer|Basic|Token)[ \t]+/i;
const TOKEN_SHAPES = [
  /(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}/g,
  /(?<![\w-])sk-[A-Za-z0-9_-]{17,}/g,
  /(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,})/g,
  /(?<![A-Z0-9])AKIA[0-9A-Z]{16}(?![A-Z0-9])/g,
  // NVIDIA API catalog (NIM) keys, Groq keys
  /(?<![\w-])nvapi-[A-Za-z0-9_-]{20,}/g,
  /(?<![A-Za-z0-9])gsk_[A-Za-z0-9]{20,}/g,
  // a bare JWT: base64url header `{"alg"…` (eyJ), payload, signature
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];
const UNSET_TEXT = /^(None|null|nil|none|True|False|true|false|\*+|<redacted>)$/;

/** Span of the secret value that starts at `i` and its replacement, or null to leave it. */
function secretSpan(text: string, i: number, assigned = false): [number, number, string] | null {
  const c = text[i];
  if (c === "'" || c === '"') {
    let end = i + 1;
    while (end < text.length && text[end] !== c) end += text[end] === '\\' ? 2 : 1;
    end = Math.min(end, text.length);
    const inner = text.slice(i + 1, end);
    if (inner === '' || inner === REDACTED) return null;
    const scheme = SCHEME_RE.exec(inner);
    return [i + 1, end, scheme ? scheme[0] + REDACTED : REDACTED];
  }
  if (text.startsWith('Some(', i)) return secretSpan(text, i + 5);
  if (c === '[') {
    const end = text.indexOf(']', i);
    const inner = text.slice(i + 1, end < 0 ? text.length : end);
    if (inner.trim() === '') return null;
    return [i + 1, end < 0 ? text.length : end, `'${REDACTED}'`];
  }
  const token = /[^\s,;)}\]&'"]+/y;
  token.lastIndex = i;
  const m = token.exec(text);
  // A bare number is a count (`#token: 57192`, `max_tokens=512`), never a credential.
  // After a blank, `-x`/`--flag` is the next flag (the secret flag was given no value); after `=` it is the value,
  // and so is a long dash-led token that no flag looks like (`--api-key -Zq8…`).
  const dashed = m?.[0].startsWith('-') && !assigned && /^--|^-[A-Za-z]{1,4}$/.test(m[0]);
  if (!m || UNSET_TEXT.test(m[0]) || dashed || /^\d+(?:\.\d+)?$/.test(m[0])) return null;
  if (SCHEME_RE.test(`${m[0]} `) && /[ \t]/.test(text[i + m[0].length] ?? '')) {
    let j = i + m[0].length;
    while (text[j] === ' ' || text[j] === '\t') j++;
    return secretSpan(text, j);
  }
  return [i, i + m[0].length, REDACTED];
}

function redactKeyed(text: string, re: RegExp): string {
  let out = '';
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (!isSecretKey(m[1]!)) continue;
    const span = secretSpan(text, m.index + m[0].length, /[=:][ \t]*$/.test(m[0]));
    if (!span || span[0] < last) continue;
    // A flag's value is one word, commas and all: llama-server's `--api-key k1,k2` takes a list of keys.
    if (re === CLI_RE && span[2] === REDACTED) {
      const rest = /^[^\s'"]*/.exec(text.slice(span[1]))![0];
      span[1] += rest.length;
    }
    out += text.slice(last, span[0]) + span[2];
    last = span[1];
    re.lastIndex = Math.max(re.lastIndex, last);
  }
  return out + text.slice(last);
}

// An HTTP cookie header: every pair in it is a session, to the end of the line.
const COOKIE_RE = /(\b(?:Set-)?Cookie[ \t]*:[ \t]*)[^\s][^\r\n]*/gi;
// `password hunter2`, `api-key X`: a secret's name and its value separated by blanks only (no `=`, no `--`).
const SPACED_RE = /(?<![\w-])((?:password|passwd|passphrase|api[-_]?key|secret|token)[ \t]+)([^\s,;'"]+)/gi;

/** A word that reads as a credential rather than prose: a digit or a capital in it, or long. */
function credentialLike(v: string): boolean {
  if (v === REDACTED || UNSET_TEXT.test(v) || /^\d+$/.test(v) || v.startsWith('-')) return false;
  return /\d/.test(v) || /[A-Z]/.test(v.slice(1)) || v.length >= 20;
}

// Each pattern above needs one of these: a text with none (most values: names, numbers, paths) has nothing to mask.
const MAYBE_SECRET =
  /--|[=:]|Bearer|hf_|sk-|gh[pousr]_|github_pat_|AKIA|nvapi-|gsk_|eyJ|pass|api[-_]?key|secret|token/i;

/**
 * A quick test for the lines worth a full redaction pass: a secret-like name (one list with isSecretKey's
 * words) or a credential by its value's shape (tokens, key ids, `scheme://user:pass@host`).
 */
const SECRET_HINT =
  /key|token|secret|pass|pwd|cred|auth|bearer|cookie|hf_|sk-|gh[pousr]_|github_pat_|AKIA|nvapi-|gsk_|eyJ|:\/\/[^\s/@]*:[^\s@]*@/i;

export function mayHoldSecret(text: string): boolean {
  return SECRET_HINT.test(text);
}

/** Masks secret values inside a raw log line that is kept verbatim as evidence. */
export function redactText(text: string): string {
  // SECRET_HINT holds for every text this masks (a secret name has one of its words, a token one of its
  // prefixes): a text without it is returned before the passes below, whose regexes compile on first use.
  if (!MAYBE_SECRET.test(text) || !SECRET_HINT.test(text)) return text;
  // the cookie header first: its `name=value` pairs are not keyed secrets the passes below would know
  let out = redactKeyed(redactKeyed(text.replace(COOKIE_RE, `$1${REDACTED}`), CLI_RE), KEYED_RE);
  out = out.replace(SPACED_RE, (all, name: string, value: string) =>
    credentialLike(value) ? `${name}${REDACTED}` : all,
  );
  out = out.replace(BEARER_RE, `$1${REDACTED}`);
  for (const re of TOKEN_SHAPES) out = out.replace(re, REDACTED);
  // `scheme://user:pass@host`, `redis://:pass@host`: the password may hold `/` (but not `@` or a blank).
  return out.replace(/(:\/\/[^\s:@/]*:)[^\s@]+@/g, `$1${REDACTED}@`);
}
