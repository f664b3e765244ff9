/**
 * Reads a sweep file (TOML, with the reader firedup.toml uses) into a SweepSpec. Every mistake is one line that
 * names the file, the line and what to write instead, before any server is started: a sweep that fails on its
 * third point because of a typo in its bench plan has wasted two launches.
 *
 *   name = "llama-np-ctx"                       # default: the file's name
 *   command = "llama-server -m tiny.gguf --port 8090 -t 1"   # or ["llama-server", "-m", ...]
 *   targets = ["tpot_ms <= 50", "output_tok_s >= 100"]   # latency targets are limits on every level
 *   logs = "sweep-logs"     # per_point: a directory (default <name>-logs); append: a file
 *   log_mode = "per_point"  # or "append"
 *   repeat = 3              # runs of each point: the median ranks, the spread says what is noise
 *   [grid]
 *   parallel = [1, 2]       # --parallel 1, --parallel 2
 *   ctx_size = [512, 1024]
 *   [[variant]]             # explicit argument sets, one more axis
 *   name = "fa"
 *   args = "--flash-attn on"
 *   [bench]
 *   concurrency = [1, 4]
 *   input_len = 64
 *   output_len = 32
 *   requests = 8
 *   [timeouts]
 *   ready = "10m"
 *   bench = "30m"
 *   stop = "30s"
 *
 * Servers run in the file's directory, so relative paths in the command are relative to the file.
 */

import path from 'node:path';
import { ENGINES, type EngineId } from '../core/base/types.js';
import {
  type BenchSpec,
  flagName,
  type GridAxis,
  type GridValue,
  type SweepSpec,
  splitCommand,
  type Variant,
} from '../core/campaign/sweep/plan.js';
import { parseTarget, TargetParseError } from '../core/campaign/targets.js';
import { type Entry, type Keys, parseToml, type Value } from '../core/config/toml.js';
import { UsageError } from '../errors.js';
import { readConfigFile } from './config-file.js';

export interface LoadedSweep {
  spec: SweepSpec;
  file: string;
  /** Where the servers run (the file's directory). */
  dir: string;
}

const TOP = ['name', 'command', 'url', 'engine', 'logs', 'log_mode', 'repeat', 'targets'];
const BENCH = [
  'concurrency',
  'input_len',
  'output_len',
  'requests',
  'warmup',
  'endpoint',
  'model',
  'slo',
  'request_timeout',
  'ignore_eos',
  'seed',
];
const TIMEOUTS = ['ready', 'bench', 'stop'];

export function loadSweepFile(file: string): LoadedSweep {
  const doc = parseToml(
    readConfigFile(file, `sweep: ${file}`, {
      ENOENT: ' (firedup sweep --help shows a sweep file)',
      EISDIR: '; name a .toml sweep file',
    }),
    file,
    { tables: ['grid', 'bench', 'timeouts'], arrays: ['variant'] },
  );
  const at = (line: number, why: string): never => {
    throw new UsageError(`${file}:${line}: ${why}`);
  };
  const unknown = (keys: Keys, known: string[], where: string) => {
    for (const [k, e] of keys)
      if (!known.includes(k)) at(e.line, `unknown ${where}setting ${k} (known: ${known.join(', ')})`);
  };
  const str = (e: Entry, key: string): string =>
    typeof e.value === 'string' ? e.value : at(e.line, `${key} must be a string in "quotes"`);
  const int = (e: Entry, key: string, min: number): number =>
    typeof e.value === 'number' && Number.isInteger(e.value) && e.value >= min
      ? e.value
      : at(e.line, `${key} must be a whole number of at least ${min}`);
  const seconds = (e: Entry, key: string): number => {
    if (typeof e.value === 'number' && e.value > 0) return e.value;
    const m = typeof e.value === 'string' ? /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(e.value.trim()) : null;
    if (!m || Number(m[1]) <= 0)
      return at(e.line, `${key} must be a duration: "90s", "10m", "1h" (or seconds as a number)`);
    const n = Number(m[1]);
    const unit = m[2] ?? 's';
    return unit === 'ms' ? n / 1000 : unit === 's' ? n : unit === 'm' ? n * 60 : n * 3600;
  };
  const argvOf = (e: Entry, key: string): string[] => {
    if (Array.isArray(e.value)) {
      if (e.value.some((v) => typeof v !== 'string'))
        at(e.line, `${key} as an array holds strings only: ["llama-server", "-m", "model.gguf"]`);
      return e.value as string[];
    }
    const split = splitCommand(str(e, key));
    if (!Array.isArray(split)) return at(e.line, `${key}: ${split.error}`);
    return split;
  };

  const top = doc.top;
  unknown(top, TOP, '');
  const dir = path.dirname(path.resolve(file));
  const get = (keys: Keys, k: string) => keys.get(k);

  const nameE = get(top, 'name');
  const name = nameE ? str(nameE, 'name').trim() : path.basename(file).replace(/\.toml$/, '');
  if (name === '') at(nameE!.line, 'name is empty');
  const cmdE = get(top, 'command');
  if (!cmdE)
    at(1, 'command is missing: command = "llama-server -m model.gguf --port 8080" (the base launch)');
  const command = argvOf(cmdE!, 'command');
  if (command.length === 0) at(cmdE!.line, 'command is empty');

  let url: string | null = null;
  const urlE = get(top, 'url');
  if (urlE) {
    url = str(urlE, 'url');
    if (!/^https?:\/\/[^\s/]+/.test(url)) at(urlE.line, `url ${url}: not an http:// or https:// URL`);
  }
  let engine: EngineId | null = null;
  const engE = get(top, 'engine');
  if (engE) {
    const v = str(engE, 'engine');
    if (!(ENGINES as readonly string[]).includes(v))
      at(engE.line, `engine must be one of ${ENGINES.join(', ')}`);
    engine = v as EngineId;
  }
  const modeE = get(top, 'log_mode');
  const logMode = modeE ? str(modeE, 'log_mode') : 'per_point';
  if (logMode !== 'per_point' && logMode !== 'append')
    at(modeE!.line, `log_mode must be "per_point" (a log per point) or "append" (one log for the sweep)`);
  const logsE = get(top, 'logs');
  const logs = path.resolve(
    dir,
    logsE ? str(logsE, 'logs') : logMode === 'append' ? `${name}.log` : `${name}-logs`,
  );
  const repeatE = get(top, 'repeat');
  const repeat = repeatE ? int(repeatE, 'repeat', 1) : 1;
  const targets: string[] = [];
  const tE = get(top, 'targets');
  if (tE) {
    const list = Array.isArray(tE.value) ? tE.value : [tE.value];
    for (const t of list) {
      if (typeof t !== 'string') at(tE.line, 'targets are strings: ["output_tok_s >= 1000"]');
      try {
        targets.push(parseTarget(limitAlias(t as string)).expr);
      } catch (e) {
        if (e instanceof TargetParseError) at(tE.line, e.message);
        throw e;
      }
    }
  }

  // The grid: each key a flag, each value a list of what it takes.
  const grid: GridAxis[] = [];
  for (const [key, e] of doc.tables.get('grid')?.keys ?? []) {
    const values = (Array.isArray(e.value) ? e.value : [e.value]) as GridValue[];
    if (values.length === 0) at(e.line, `${key} = []: give at least one value`);
    const seen = new Set(values.map((v) => JSON.stringify(v)));
    if (seen.size !== values.length) at(e.line, `${key} lists a value twice`);
    grid.push({ key, flag: flagName(key), values });
  }
  const variants: Variant[] = [];
  for (const t of doc.arrays.get('variant') ?? []) {
    unknown(t.keys, ['name', 'args'], 'variant ');
    const argsE = t.keys.get('args');
    if (!argsE) at(t.line, '[[variant]] needs args = "--flag value ..." (and a name)');
    const nE = t.keys.get('name');
    const vname = nE ? str(nE, 'name') : `variant${variants.length + 1}`;
    if (variants.some((v) => v.name === vname)) at(nE?.line ?? t.line, `variant ${vname} is named twice`);
    variants.push({ name: vname, args: argvOf(argsE!, 'args') });
  }

  const bench = readBench(doc.tables.get('bench')?.keys ?? new Map(), {
    at,
    int,
    str,
    seconds,
    unknown,
  });
  const tKeys = doc.tables.get('timeouts')?.keys ?? new Map<string, Entry>();
  unknown(tKeys, TIMEOUTS, 'timeouts ');
  const tOf = (k: string, dflt: number) => (tKeys.get(k) ? seconds(tKeys.get(k)!, k) : dflt);

  return {
    file: path.resolve(file),
    dir,
    spec: {
      name,
      command,
      grid,
      variants,
      bench,
      targets,
      readyTimeoutS: tOf('ready', 1800),
      benchTimeoutS: tOf('bench', 3600),
      stopGraceS: tOf('stop', 30),
      logMode: logMode as SweepSpec['logMode'],
      logs,
      url,
      engine,
      repeat,
    },
  };
}

/** A sweep's latency limits as they are said (`tpot_ms <= 50`): the level's median, the targets' `tpot_median_ms`. */
function limitAlias(expr: string): string {
  return expr.replace(/^\s*(ttft|tpot|itl|e2e)_ms\b/, '$1_median_ms');
}

interface Readers {
  at: (line: number, why: string) => never;
  int: (e: Entry, key: string, min: number) => number;
  str: (e: Entry, key: string) => string;
  seconds: (e: Entry, key: string) => number;
  unknown: (keys: Keys, known: string[], where: string) => void;
}

function readBench(keys: Keys, r: Readers): BenchSpec {
  r.unknown(keys, BENCH, 'bench ');
  const e = (k: string) => keys.get(k);
  const conc = e('concurrency');
  let concurrency = [1];
  if (conc) {
    const list = (Array.isArray(conc.value) ? conc.value : [conc.value]) as Value[];
    if (list.length === 0 || list.some((v) => typeof v !== 'number' || !Number.isInteger(v) || v < 1))
      r.at(conc.line, 'concurrency must be whole numbers of at least 1: concurrency = [1, 8, 64]');
    concurrency = list as number[];
  }
  const endpointE = e('endpoint');
  const endpoint = endpointE ? r.str(endpointE, 'endpoint') : 'completions';
  if (endpoint !== 'completions' && endpoint !== 'chat')
    r.at(
      endpointE!.line,
      'endpoint must be "completions" (/v1/completions) or "chat" (/v1/chat/completions)',
    );
  const sloE = e('slo');
  const slo = sloE ? r.str(sloE, 'slo') : null;
  if (slo !== null && !/^(?:(?:ttft_ms|tpot_ms|e2e_ms)=\d+(?:\.\d+)?,?)+$/.test(slo.replace(/\s/g, '')))
    r.at(sloE!.line, 'slo must be "ttft_ms=500,tpot_ms=50" (keys ttft_ms, tpot_ms, e2e_ms)');
  const ie = e('ignore_eos');
  if (ie && typeof ie.value !== 'boolean') r.at(ie.line, 'ignore_eos must be true or false');
  return {
    concurrency,
    inputLen: e('input_len') ? r.int(e('input_len')!, 'input_len', 1) : 256,
    outputLen: e('output_len') ? r.int(e('output_len')!, 'output_len', 1) : 128,
    requests: e('requests') ? r.int(e('requests')!, 'requests', 1) : null,
    warmup: e('warmup') ? r.int(e('warmup')!, 'warmup', 0) : 0,
    endpoint: endpoint as BenchSpec['endpoint'],
    model: e('model') ? r.str(e('model')!, 'model') : null,
    slo,
    requestTimeoutS: e('request_timeout') ? r.seconds(e('request_timeout')!, 'request_timeout') : 600,
    ignoreEos: ie ? (ie.value as boolean) : true,
    seed: e('seed') ? r.int(e('seed')!, 'seed', 0) : 0,
  };
}
