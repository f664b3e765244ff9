/**
 * `bench run`'s flags as a plan: every value is checked here, and a bad one is one line naming the flag and
 * what to give instead (exit 1, as every command's usage errors), before anything is sent.
 */
import fs from 'node:fs';
import type { BenchPlan, Endpoint } from '../bench/run.js';
import {
  DatasetError,
  type Prompt,
  parseDataset,
  randomPrompt,
  rng,
} from '../core/campaign/bench/loadgen/prompts.js';
import { parseSlo } from '../core/campaign/bench/loadgen/slo.js';
import type { Level } from '../core/campaign/bench/loadgen/types.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { LEDGER_FLAGS } from './ledger-commands.js';

export const RUN_FLAGS: Record<string, FlagSpec> = {
  ...LEDGER_FLAGS,
  url: { type: 'string' },
  concurrency: { type: 'string', alias: 'c' },
  rate: { type: 'string' },
  arrival: { type: 'string' },
  requests: { type: 'string', alias: 'n' },
  duration: { type: 'string' },
  warmup: { type: 'string' },
  'input-len': { type: 'string' },
  'output-len': { type: 'string' },
  dataset: { type: 'string' },
  model: { type: 'string' },
  endpoint: { type: 'string' },
  'no-ignore-eos': { type: 'boolean' },
  timeout: { type: 'string' },
  slo: { type: 'string' },
  'max-failed': { type: 'string' },
  seed: { type: 'string' },
  launch: { type: 'string' },
  host: { type: 'string' },
  'no-ledger': { type: 'boolean' },
};

const CMD = 'bench run';
const bad = (msg: string) => new UsageError(`${CMD}: ${msg}`);

export interface RunOptions {
  url: URL;
  /** Everything of the plan but the model, which may have to be asked of the server. */
  plan: Omit<BenchPlan, 'model'>;
  model: string | null;
  promptsFrom: string;
  flags: Record<string, unknown>;
  /** `--max-failed`: the share of failed requests past which a level meets no target. */
  maxFailedRate: number;
}

function int(flags: Record<string, unknown>, name: string, min: number): number | null {
  const v = flags[name];
  if (v === undefined) return null;
  const s = String(v);
  if (!/^\d+$/.test(s) || Number(s) < min)
    throw bad(`--${name} ${s}: expected a whole number${min > 0 ? ` of at least ${min}` : ''}`);
  return Number(s);
}

function list(v: string, flag: string, integer: boolean): number[] {
  return v.split(',').map((p) => {
    const s = p.trim();
    const n = Number(s);
    if (s === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
      throw bad(
        `--${flag} ${v}: expected ${integer ? 'whole numbers' : 'numbers'} above 0, comma-separated (e.g. --${flag} ${integer ? '1,8,64' : '2,10'})`,
      );
    return n;
  });
}

/** `1%`, `0.5%` or `5` (percent): a share from 0 to 1. */
function percent(s: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*%?$/.exec(s.trim());
  const v = m ? Number(m[1]) : Number.NaN;
  if (!m || v > 100) throw bad(`--${flag} ${s}: a percentage from 0 to 100, e.g. 1%`);
  return v / 100;
}

export function seconds(s: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(s.trim());
  if (!m || Number(m[1]) <= 0) throw bad(`--${flag} ${s}: not a duration (use 500ms, 90s, 5m or 1h)`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return unit === 'ms' ? n / 1000 : unit === 's' ? n : unit === 'm' ? n * 60 : n * 3600;
}

export function parseUrl(v: unknown): URL {
  if (typeof v !== 'string' || v === '')
    throw bad(
      '--url is required: the server to benchmark, e.g. firedup bench run --url http://127.0.0.1:30000',
    );
  let u: URL;
  try {
    u = new URL(/^[a-z]+:\/\//i.test(v) ? v : `http://${v}`);
  } catch {
    throw bad(`--url ${v}: not a URL; give the server's base, e.g. --url http://127.0.0.1:30000`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw bad(`--url ${v}: only http:// and https:// servers can be benchmarked`);
  // The OpenAI paths are added here: a URL given with /v1 (as OpenAI clients take it) means the same server.
  return new URL(u.origin);
}

function prompts(
  flags: Record<string, unknown>,
  seed: number,
  count: number,
): { prompts: Prompt[]; from: string } {
  const outputLen = int(flags, 'output-len', 1);
  if (typeof flags.dataset === 'string') {
    if (flags['input-len'] !== undefined)
      throw bad(
        '--input-len applies to random prompts; a --dataset brings its own prompts (drop one of them)',
      );
    let text: string;
    try {
      text = fs.readFileSync(flags.dataset, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw bad(
        `--dataset ${flags.dataset}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory; name a JSON or JSONL file' : (e as Error).message}`,
      );
    }
    try {
      return { prompts: parseDataset(text, flags.dataset, outputLen), from: flags.dataset };
    } catch (e) {
      if (e instanceof DatasetError) throw bad(`--dataset ${e.message}`);
      throw e;
    }
  }
  const inputLen = int(flags, 'input-len', 1) ?? 256;
  const out = outputLen ?? 128;
  const rand = rng(seed);
  const n = Math.min(Math.max(count, 1), 4096);
  return {
    prompts: Array.from({ length: n }, () => randomPrompt(rand, inputLen, out)),
    from: `random ${inputLen} in / ${out} out`,
  };
}

export function parseRunFlags(argv: string[]): RunOptions {
  const { flags, positionals } = parseArgs(argv, RUN_FLAGS, CMD);
  if (positionals.length)
    throw bad(`unexpected argument '${positionals[0]}'; the server is given with --url URL`);
  const url = parseUrl(flags.url);
  const rates = typeof flags.rate === 'string' ? list(flags.rate, 'rate', false) : null;
  const conc = typeof flags.concurrency === 'string' ? list(flags.concurrency, 'concurrency', true) : null;
  if (rates && conc && conc.length > 1)
    throw bad(
      '--rate with several --concurrency values: with --rate, --concurrency is one cap on requests in flight',
    );
  const levels: Level[] = rates
    ? rates.map((rate) => ({ rate, concurrency: conc?.[0] ?? null }))
    : (conc ?? [1]).map((concurrency) => ({ concurrency, rate: null }));
  const arrival = flags.arrival ?? 'poisson';
  if (arrival !== 'poisson' && arrival !== 'constant')
    throw bad(`--arrival ${String(arrival)}: expected poisson or constant`);
  if (flags.arrival !== undefined && !rates)
    throw bad('--arrival applies to --rate; add --rate N (requests per second)');
  const requests = int(flags, 'requests', 1);
  const durationS = typeof flags.duration === 'string' ? seconds(flags.duration, 'duration') : null;
  if (requests !== null && durationS !== null)
    throw bad(
      '--requests and --duration both set: a level ends after a number of requests or a time, give one',
    );
  const endpoint = (flags.endpoint ?? 'completions') as string;
  if (endpoint !== 'completions' && endpoint !== 'chat')
    throw bad(
      `--endpoint ${endpoint}: expected completions (/v1/completions) or chat (/v1/chat/completions)`,
    );
  const seed = int(flags, 'seed', 0) ?? 0;
  const warmup = int(flags, 'warmup', 0) ?? 0;
  // Enough requests for percentiles to mean something, and several rounds of the concurrency.
  const perLevel = (l: Level) =>
    l.rate !== null ? Math.max(20, Math.round(l.rate * 10)) : Math.max(20, 5 * (l.concurrency ?? 1));
  const defaultRequests = durationS === null && requests === null;
  const most = Math.max(...levels.map((l) => (requests ?? perLevel(l)) + warmup));
  const p = prompts(flags, seed, most);
  const slo = typeof flags.slo === 'string' ? parseSlo(flags.slo) : null;
  const timeoutS = typeof flags.timeout === 'string' ? seconds(flags.timeout, 'timeout') : 600;
  const maxFailedRate =
    typeof flags['max-failed'] === 'string' ? percent(flags['max-failed'], 'max-failed') : 0.01;
  if (typeof flags.host === 'string' && typeof flags.launch === 'string')
    throw bad('--host and --launch both set: --launch names the launch itself, --host only helps find it');
  return {
    url,
    model: typeof flags.model === 'string' ? flags.model : null,
    promptsFrom: p.from,
    flags,
    maxFailedRate,
    plan: {
      endpoint: endpoint as Endpoint,
      prompts: p.prompts,
      levels,
      arrival: arrival as 'poisson' | 'constant',
      // One count for all levels unless given: the default scales with each level, so it is applied per level.
      requests: defaultRequests ? null : requests,
      durationS,
      warmup,
      timeoutS,
      ignoreEos: !flags['no-ignore-eos'],
      slo,
      seed,
      ...(defaultRequests ? { requestsPerLevel: levels.map(perLevel) } : {}),
    },
  };
}
