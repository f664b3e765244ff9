/**
 * Which process is a launch's server, by evidence only. On an 8-GPU node two servers, a router and
 * yesterday's leftover all look like the engine; a process belongs to a launch only when something proves
 * it: it listens on the port the launch logged, its pid is in the log, or its command line carries the
 * launch's own model and port. When several qualify, or none does, the answer says so and lists the
 * candidates: it never picks one. Pure: the process table comes in as data (local /proc or a remote one).
 */
import type { ProcessCandidate, ProcessSearch } from '../core/verdict/observations.js';
import { looksLikeLaunch } from './launch-patterns.js';

/** What the launch's log says about its server. */
export interface ServerClaim {
  /** The port the log names (or the engine's default when `portLogged` is false). */
  port?: number;
  /** False when `port` is the engine's default, not a port the log wrote. */
  portLogged?: boolean;
  engine?: string | null;
  /** The model as the log names it (a path or a hub name). */
  model?: string | null;
  /** Pids the log's lines carry (vLLM's `(APIServer pid=N)`, Ray's `(pid=N)`). */
  pids?: number[];
}

/** One process of the table, as the rules need it. */
export interface TableProcess {
  pid: number;
  ppid: number;
  starttime: number;
  cmdline: string | null;
  /** Ports this process itself listens on (null: not read, only asked of the few that matter). */
  listening: number[] | null;
}

/** Why it was not tied to the launch (or, among several that qualify, why it qualified). */
export type ServerCandidate = ProcessCandidate;

export type ServerMatch = { pid: number; tiedBy: string } | ({ pid: null } & ProcessSearch);

/** Default listening ports, as each engine's argument parser sets them. */
export const ENGINE_DEFAULT_PORTS: Record<string, number> = {
  // sglang/srt/server_args.py: port: int = 30000
  sglang: 30000,
  // vllm/entrypoints/openai/cli_args.py: --port default 8000
  vllm: 8000,
  // llama.cpp tools/server (common/common.h): int32_t port = 8080
  llamacpp: 8080,
  // text-generation-launcher (launcher/src/main.rs): #[clap(default_value = "3000")] port
  tgi: 3000,
  // tensorrt_llm/commands/serve.py: --port default 8000
  trtllm: 8000,
};

const MODEL_FLAGS = new Set(['--model-path', '--model', '-m', '--model-id', '--model_path']);

/** The model and port a server's command line asks for (null where it names none). */
export function commandLineClaims(cmdline: string): { model: string | null; port: number | null } {
  const words = cmdline.split(/\s+/).filter(Boolean);
  let model: string | null = null;
  let port: number | null = null;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const eq = w.indexOf('=');
    const flag = eq > 0 && w.startsWith('-') ? w.slice(0, eq) : w;
    const value = eq > 0 && w.startsWith('-') ? w.slice(eq + 1) : words[i + 1];
    if (flag === '--port' && value !== undefined && /^\d+$/.test(value)) port = Number(value);
    // `python -m sglang.launch_server`: that -m names a module, not a model.
    else if (
      MODEL_FLAGS.has(flag) &&
      value !== undefined &&
      !(flag === '-m' && /(^|\/)python[\d.]*$/.test(words[i - 1] ?? ''))
    )
      model ??= value;
    // `vllm serve MODEL`: the model is the first word after `serve` that is not a flag.
    else if (
      w === 'serve' &&
      words[i - 1]?.endsWith('vllm') &&
      words[i + 1] &&
      !words[i + 1]!.startsWith('-')
    )
      model ??= words[i + 1]!;
  }
  return { model, port };
}

/** Two spellings of one model: the same text, or the same path up to a trailing slash. */
export function sameModel(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/\/+$/, '');
  return norm(a) === norm(b);
}

/** The processes of `set` whose parent chain holds no other member of `set`: one per server tree. */
function roots(set: TableProcess[], byPid: Map<number, TableProcess>): TableProcess[] {
  const members = new Set(set.map((p) => p.pid));
  return set.filter((p) => {
    const seen = new Set<number>();
    for (let up = byPid.get(p.ppid); up && !seen.has(up.pid); up = byPid.get(up.ppid)) {
      seen.add(up.pid);
      if (members.has(up.pid)) return false;
    }
    return true;
  });
}

const short = (c: string | null) =>
  c === null ? '(no command line)' : c.length > 120 ? `${c.slice(0, 117)}…` : c;

/**
 * The launch's server among `table` (oldest first), or why none is, with the candidates. `listening` is
 * read for the processes holding the claimed port (and may be for the engine's look-alikes, to say why
 * they do not count).
 */
export function matchServer(claim: ServerClaim, table: TableProcess[]): ServerMatch {
  const byPid = new Map(table.map((p) => [p.pid, p]));
  const engine = claim.engine ?? null;
  const port = claim.port;
  const describe = (p: TableProcess, why: string): ServerCandidate => ({
    pid: p.pid,
    cmdline: short(p.cmdline),
    listening: p.listening ?? [],
    why,
  });

  // 1. It listens on the port the launch logged.
  if (port !== undefined) {
    const holders = roots(
      table.filter((p) => p.listening?.includes(port)),
      byPid,
    );
    const proven = holders.filter(
      (p) => claim.portLogged !== false || (p.cmdline !== null && looksLikeLaunch(p.cmdline, engine)),
    );
    if (proven.length === 1) {
      const p = proven[0]!;
      return {
        pid: p.pid,
        tiedBy:
          claim.portLogged !== false
            ? `it listens on port ${port}, the port the log names`
            : `it listens on port ${port}, ${engine}'s default (the log names none), and its command line launches ${engine}`,
      };
    }
    if (proven.length > 1)
      return {
        pid: null,
        why: `${proven.length} process trees listen on port ${port}`,
        candidates: proven.map((p) => describe(p, `listens on ${port}`)),
      };
  }

  // 2. Its pid is in the log.
  const logged = new Set(claim.pids ?? []);
  if (logged.size > 0) {
    const alive = roots(
      table.filter((p) => logged.has(p.pid)),
      byPid,
    );
    if (alive.length === 1) return { pid: alive[0]!.pid, tiedBy: `its pid ${alive[0]!.pid} is in the log` };
    if (alive.length > 1)
      return {
        pid: null,
        why: `${alive.length} unrelated processes have pids the log names`,
        candidates: alive.map((p) => describe(p, 'its pid is in the log')),
      };
  }

  // 3. Its command line carries the launch's own model and port.
  const lookalikes = roots(
    table.filter((p) => p.cmdline !== null && looksLikeLaunch(p.cmdline, engine)),
    byPid,
  );
  const defaultPort = engine ? ENGINE_DEFAULT_PORTS[engine] : undefined;
  const verdicts = lookalikes.map((p) => {
    const c = commandLineClaims(p.cmdline!);
    const cport = c.port ?? defaultPort ?? null;
    const reasons: string[] = [];
    if (!claim.model) reasons.push('the log names no model yet to compare');
    else if (c.model === null) reasons.push('its command line names no model');
    else if (!sameModel(c.model, claim.model))
      reasons.push(`its command line names model ${c.model}, not ${claim.model}`);
    if (port !== undefined) {
      if (cport === null) reasons.push('its command line names no port');
      else if (cport !== port) reasons.push(`its command line's port is ${cport}, not ${port}`);
    }
    const other = (p.listening ?? []).filter((x) => x !== port);
    if (port !== undefined && other.length > 0)
      reasons.push(`it listens on ${other.join(', ')}, not ${port}`);
    return { p, reasons, c };
  });
  const matching = verdicts.filter((v) => v.reasons.length === 0);
  if (matching.length === 1) {
    const { p, c } = matching[0]!;
    return {
      pid: p.pid,
      tiedBy: `its command line launches ${engine ?? 'the engine'} with the launch's model (${c.model})${port !== undefined ? ` and port ${port}` : ''}`,
    };
  }
  if (matching.length > 1)
    return {
      pid: null,
      why: `${matching.length} processes launch the same model${port !== undefined ? ` on port ${port}` : ''}; name one with --pid`,
      candidates: matching.map(({ p }) =>
        describe(p, "its command line carries the launch's model and port"),
      ),
    };
  return {
    pid: null,
    why:
      lookalikes.length === 0
        ? `no process listens on ${port !== undefined ? `port ${port}` : "the launch's port"} or launches ${engine ?? 'an engine'}`
        : `none of ${lookalikes.length} ${engine ?? 'engine'} process${lookalikes.length > 1 ? 'es' : ''} is this launch's`,
    candidates: verdicts.map(({ p, reasons }) => describe(p, reasons.join('; '))),
  };
}
