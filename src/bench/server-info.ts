/**
 * What the server says about itself before a benchmark: the served model (/v1/models, the OpenAI list every
 * engine serves) and, where the engine has one, its own config — SGLang's /server_info (/get_server_info before
 * 0.4), llama-server's /props; vLLM has no such endpoint, only /version. Stored with the bench so a figure carries
 * the config that produced it (GuideLLM's users ask for exactly that, research/anchors.md §1.5).
 */
import { redactConfig } from '../core/config/redact.js';
import { BenchError } from './errors.js';

export interface ServerInfo {
  engine: 'sglang' | 'llamacpp' | 'vllm' | null;
  version: string | null;
  config: Record<string, unknown> | null;
}

type Obj = Record<string, unknown>;
type Got = { status: number; body: unknown } | { error: string };

async function getJson(url: string, timeoutMs: number): Promise<Got> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: res.status, body };
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause;
    return {
      error:
        (e as Error).name === 'TimeoutError'
          ? `no answer within ${timeoutMs / 1000} s`
          : (cause?.code ?? (e as Error).message),
    };
  }
}

const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The first model the server lists; a server that cannot be reached or lists none is a BenchError. */
export async function servedModel(base: string, timeoutMs = 5000): Promise<string> {
  const url = new URL('/v1/models', base).href;
  const r = await getJson(url, timeoutMs);
  if ('error' in r) throw new BenchError('unreachable', `${url}: ${r.error}`);
  if (r.status !== 200) throw new BenchError('http', `${url}: HTTP ${r.status}`);
  const data = obj(r.body)?.data;
  const id = Array.isArray(data) ? str(obj(data[0])?.id) : null;
  if (!id) throw new BenchError('no_model', `${url} lists no model`);
  return id;
}

/** Never throws: the info endpoints are extras, a server without them is benchmarked all the same. */
export async function serverInfo(base: string, timeoutMs = 3000): Promise<ServerInfo> {
  const at = (p: string) => new URL(p, base).href;
  for (const p of ['/server_info', '/get_server_info']) {
    const r = await getJson(at(p), timeoutMs);
    const o = 'error' in r || r.status !== 200 ? null : obj(r.body);
    if (o) return { engine: 'sglang', version: str(o.version), config: redactConfig(o) };
    if ('error' in r) return { engine: null, version: null, config: null };
  }
  const props = await getJson(at('/props'), timeoutMs);
  const po = 'error' in props || props.status !== 200 ? null : obj(props.body);
  if (po) {
    // chat_template is kilobytes of Jinja that says nothing about how the server runs.
    const { chat_template: _t, ...config } = po;
    return { engine: 'llamacpp', version: str(po.build_info), config: redactConfig(config) };
  }
  const v = await getJson(at('/version'), timeoutMs);
  const vo = 'error' in v || v.status !== 200 ? null : obj(v.body);
  return { engine: vo ? 'vllm' : null, version: str(vo?.version), config: null };
}
