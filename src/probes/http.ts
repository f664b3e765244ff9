/**
 * Asks the server's HTTP port how it is. The health answer separates "nothing listens yet" (refused:
 * still loading, or dead), "listening but not ready" (503 from SGLang ≥ 0.5 and llama.cpp while
 * loading) and "ready" (200); once ready, the info endpoints say which version and model are served.
 */
import { redactConfig, redactText } from '../core/config/redact.js';
import type { HttpObservation, HttpState } from '../core/verdict/observations.js';

export interface ProbeHttpOptions {
  timeoutMs?: number;
}

interface Info {
  version: string | null;
  model: string | null;
  serverConfig: Record<string, unknown> | null;
}

// Every engine firedup knows answers /health; kept as a table so a new engine with another path is a
// one-line change.
const HEALTH_PATH: Record<string, string> = {
  sglang: '/health',
  vllm: '/health',
  llamacpp: '/health',
  tgi: '/health',
  trtllm: '/health',
};

// server_info and model_info are large JSON objects but far below this; the cap bounds a misbehaving
// server, not a real one.
const MAX_BODY = 4 << 20;

type Fetched =
  | { state: 'http'; status: number; body: string }
  | { state: Exclude<HttpState, 'http'>; detail: string };

/** One GET with its own deadline over connect, headers and body. Never throws. */
async function get(url: string, timeoutMs: number): Promise<Fetched> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const res = await fetch(url, { signal: abort.signal, redirect: 'follow' });
    return { state: 'http', status: res.status, body: await readCapped(res) };
  } catch (e) {
    if (abort.signal.aborted) return { state: 'timeout', detail: `no answer within ${timeoutMs} ms` };
    const code = errorCode(e);
    return { state: code === 'ECONNREFUSED' ? 'refused' : 'error', detail: code };
  } finally {
    clearTimeout(timer);
  }
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size > MAX_BODY) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The system error code under fetch's generic "fetch failed": on `cause`, or on the first of the
 * attempts when Node tried both IPv6 and IPv4 (an AggregateError).
 */
function errorCode(e: unknown): string {
  const cause = (e as { cause?: unknown })?.cause as
    | { code?: unknown; errors?: Array<{ code?: unknown }>; message?: unknown }
    | undefined;
  const code = cause?.code ?? cause?.errors?.[0]?.code ?? (e as { code?: unknown })?.code;
  if (typeof code === 'string') return code;
  const msg = cause?.message ?? (e instanceof Error ? e.message : e);
  return String(msg).slice(0, 200);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function asObject(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function asString(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null;
}

/** The first of `paths` that answers 200 with a JSON object; older releases use the later names. */
async function getJson(base: string, paths: string[], timeoutMs: number) {
  for (const p of paths) {
    const r = await get(base + p, timeoutMs);
    if (r.state !== 'http' || r.status !== 200) continue;
    const obj = asObject(parseJson(r.body));
    if (obj) return obj;
  }
  return null;
}

/** `data[0].id` of an OpenAI-style /v1/models answer: the served model name. */
function firstModelId(models: Record<string, unknown> | null): string | null {
  const data = models?.data;
  return Array.isArray(data) ? asString(asObject(data[0])?.id) : null;
}

type InfoReader = (base: string, timeoutMs: number) => Promise<Info>;

const INFO: Record<string, InfoReader> = {
  // /server_info holds every ServerArgs field plus `version`; before 0.4 it was /get_server_info.
  sglang: async (base, t) => {
    const [info, model] = await Promise.all([
      getJson(base, ['/server_info', '/get_server_info'], t),
      getJson(base, ['/model_info', '/get_model_info'], t),
    ]);
    return {
      version: asString(info?.version),
      model: asString(info?.model_path) ?? asString(model?.model_path),
      serverConfig: info,
    };
  },
  vllm: openAiInfo,
  trtllm: openAiInfo,
  llamacpp: async (base, t) => {
    const [props, models] = await Promise.all([
      getJson(base, ['/props'], t),
      getJson(base, ['/v1/models'], t),
    ]);
    // chat_template is kilobytes of Jinja that says nothing about how the server runs.
    const { chat_template: _template, ...config } = props ?? {};
    return {
      version: asString(props?.build_info),
      model: asString(props?.model_path) ?? firstModelId(models),
      serverConfig: props ? config : null,
    };
  },
  // TGI's /info holds its launcher args with `version` and `model_id`.
  tgi: async (base, t) => {
    const info = await getJson(base, ['/info'], t);
    return { version: asString(info?.version), model: asString(info?.model_id), serverConfig: info };
  },
};

/** vLLM and trtllm-serve: /version ({"version"}) and the OpenAI model list. */
async function openAiInfo(base: string, t: number): Promise<Info> {
  const [version, models] = await Promise.all([
    getJson(base, ['/version'], t),
    getJson(base, ['/v1/models'], t),
  ]);
  return { version: asString(version?.version), model: firstModelId(models), serverConfig: null };
}

/** What a health body says in a few words: llama.cpp's {"error":{"message":"Loading model"}}, a status. */
function healthDetail(body: string): string | null {
  const obj = asObject(parseJson(body));
  const said = asString(asObject(obj?.error)?.message) ?? asString(obj?.error) ?? asString(obj?.status);
  const text = (said ?? body).trim().replace(/\s+/g, ' ');
  return text === '' ? null : redactText(text.slice(0, 200));
}

/** The health endpoint of `url` (the server's base URL), and the info endpoints once it answers 200. */
export async function probeHttp(
  url: string,
  engine: string | null,
  opts: ProbeHttpOptions = {},
): Promise<HttpObservation> {
  const timeoutMs = opts.timeoutMs ?? 1500;
  const at = Date.now() / 1000;
  const base = url.replace(/\/+$/, '');
  const started = performance.now();
  const r = await get(base + (HEALTH_PATH[engine ?? ''] ?? '/health'), timeoutMs);
  const ms = Math.round(performance.now() - started);
  const out: HttpObservation = {
    url,
    health:
      r.state === 'http'
        ? { state: 'http', status: r.status, ms, detail: healthDetail(r.body) }
        : { state: r.state, status: null, ms, detail: r.detail },
    version: null,
    model: null,
    serverConfig: null,
    at,
  };
  if (r.state !== 'http' || r.status !== 200) return out;
  const reader = INFO[engine ?? ''] ?? openAiInfo;
  try {
    const info = await reader(base, timeoutMs);
    out.version = info.version;
    out.model = info.model;
    out.serverConfig = info.serverConfig ? redactConfig(info.serverConfig) : null;
  } catch {
    // The info endpoints are extras: a server that is healthy but answers them oddly is still healthy.
  }
  return out;
}
