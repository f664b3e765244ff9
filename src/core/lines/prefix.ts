/**
 * Reads the wrappers and the logger prefix of a cleaned line: container gutters, CI/journald stamps,
 * vLLM/Ray process prefixes, then the engine's own `[ts tags]` / `LEVEL MM-DD ts [file:N]` / ... frame.
 * What remains is the message, which the engine signatures match.
 */
import { GatedPattern } from '../base/gated-pattern.js';
import type { LogFrame, LogLine } from '../base/types.js';
import { cleanText } from './clean.js';
import {
  findInnerFrame,
  learnedWrapper,
  learnWrapper,
  NUMBER_GUTTERS,
  type WrapperState,
} from './wrapper.js';

export interface PrefixContext extends WrapperState {
  /** Year for stamps that print none (vLLM, journald). Updated from any full date seen. */
  year: number;
}

const MONTHS: Record<string, number> = {
  Jan: 1,
  Feb: 2,
  Mar: 3,
  Apr: 4,
  May: 5,
  Jun: 6,
  Jul: 7,
  Aug: 8,
  Sep: 9,
  Oct: 10,
  Nov: 11,
  Dec: 12,
};

// A container/CI stamp (`docker logs --timestamps`, GitHub Actions, `[…Z] ` runners). Not peeled when TGI's own
// frame follows (`…Z  INFO target: `); a vLLM `LEVEL MM-DD` or `LEVEL PID [file]` frame after it is the engine's.
const CI_STAMP =
  /^\[?(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})\]? (?!\s*(?:TRACE|DEBUG|INFO|WARN|ERROR)\s+(?!\d{2}-\d{2} \d{2}:|\d+ \[))/;
// The host a name or address (never a `prog.py:` of argparse's `prog.py: error: …` behind a plain time stamp).
const JOURNALD = /^([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) [\w.-]+ [^\s:[]+(?:\[(\d+)\])?: /;
/**
 * A container runtime's log file (what the kubelet keeps under /var/log/pods, read there or collected from it):
 * `<RFC 3339 time> <stdout|stderr> <tag> <line>`, the tag `F` for a whole line or `P` for a part of one cut at
 * the runtime's line limit (kubelet pkg/kubelet/kuberuntime/logs/logs.go, parseCRILog; cri-api LogTagPartial,
 * LogTagFull, LogTagDelimiter `:`). The analyzer joins a part to the pieces after it (criPiece).
 */
const CRI =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}) (?:stdout|stderr) [A-Z](?::[A-Z])* /;
const CRI_PIECE =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}) (stdout|stderr) ([A-Z])(?::[A-Z])* /;

/**
 * A container runtime's record, read for joining: its stream, whether it is a part (`P`: the runtime cut the
 * line at its limit, 16 KiB by default in containerd, and the rest comes in the next records of the same stream,
 * the last one `F`) and where its text starts. Null for any other line.
 */
export function criPiece(text: string): { stream: string; partial: boolean; start: number } | null {
  const m = CRI_PIECE.exec(text);
  return m ? { stream: m[1]!, partial: m[2] === 'P', start: m[0].length } : null;
}
/** moreutils' `ts` with its default format (`%b %d %H:%M:%S `): a time before each line, nothing else. */
const TS_STAMP = /^([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) /;
/**
 * journalctl's ISO outputs (`-o short-iso`, `short-iso-precise`): `<ISO time> <host> <ident>[<pid>]: `. Not TGI's
 * own frame, which has that shape when its level fills the column (`<ISO time> ERROR text_generation_launcher: `).
 * The host is left out where the paste dropped it or a tool printed the journal's fields without it
 * (`<ISO time> <ident>[<pid>]: `, systemd's SYSLOG_IDENTIFIER and _PID, `gemma3.server[2449111]: `): then the pid
 * in brackets is required, so that an engine line's own `<ISO time> word: ` (a function's name) stays whole.
 */
const JOURNALD_ISO =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}) (?!(?:TRACE|DEBUG|INFO|WARN|ERROR) )(?:[\w.-]+ [^\s:[]+(?:\[(\d+)\])?|[\w.@-]+\[(\d+)\]): /;
/**
 * Slurm's `srun --label` (`-l`): each line after its task number, `<task>: `, right-aligned to the widest
 * (srun's I/O forwarding, `%*d: `). The task is kept as the line's tags (`task3`).
 */
const SRUN_LABEL = /^ {0,4}(\d{1,5}): /;
/** `kubectl logs --prefix` (kubectl pkg/cmd/logs/logs.go: `[<kind>/<name>/<container>] `). */
const KUBECTL_PREFIX = /^\[pod\/[a-z0-9][a-z0-9.-]*\/([a-z0-9][a-z0-9-]*)\] /;
/** A log collector's host gutter (`gpu-node-3 >> line`, `host » line`): what multi-host tails print. */
const COLLECTOR = /^([A-Za-z0-9][\w.-]*)\s*(?:>>|»)\s/;
const COMPOSE = /^(\[?[\w][\w.-]*\]?)\s+\|(?: |$)/;
/**
 * A process prefix: vLLM's own (`(EngineCore_DP0 pid=7) `, utils decorate_logs) and Ray's log_to_driver
 * (ray/_private/worker.py print_worker_logs): `(<actor or task name> pid=<pid>) ` for a worker on the driver's
 * node, `(<name> pid=<pid>, ip=<node ip>) ` for one on another node, `(pid=<pid>…)` before the actor has a
 * name, and `(raylet[, ip=…]) ` for the raylet's own lines. The ip is kept: it says which node a line came from.
 */
const PROCESS =
  /^\((?:([A-Za-z][\w-]*(?: (?:rank=\d+|[A-Z]+\d+(?:_[A-Z]+\d+)*))?) )?pid=(\d+)(?:, ip=([0-9A-Fa-f.:]+))?\) ?/;
const RAYLET = /^\((raylet)(?:, ip=([0-9A-Fa-f.:]+))?\) /;
/**
 * LocalAI's relay of a backend process's output (pkg/model/process.go startProcess, initializers.go grpcModel before:
 * it tails the backend's stderr and stdout files and logs each line as `log.Debug().Msgf("GRPC(%s): stderr %s", …)`,
 * `… stdout …`; zerolog's console writer puts `3:04PM DBG ` before it): the text after it is the backend's own line
 * (llama.cpp's, a Go runtime's crash dump, a Python traceback), read as such.
 */
const LOCALAI_RELAY = /^(?:\d{1,2}:\d{2}[AP]M )?DBG GRPC\([^()]*\): std(?:err|out)(?: |$)/;
/** Ray's log deduplication (RAY_DEDUP_LOGS) appends this to a line several workers printed alike. */
const RAY_REPEATED = / ?\[repeated \d+x across cluster\]$/;

// The diffusion server's logger (multimodal_gen/runtime/utils/logging_utils.py configure_logger: format
// `[%(asctime)s{prefix}] %(message)s`, datefmt `%m-%d %H:%M:%S`) drops the year: `[12-11 17:52:54] Exit code: -9`.
const SGLANG =
  /^\[(?:(?:(\d{4})-)?(\d{2})-(\d{2}) )?(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?((?: (?:DP|PP|ATTN_CP|MOE_DP|TP|EP)\d+)*)(?: [\w[\]]+)?\] ?/;
const SGLANG_LEVEL = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w./-]+\.py:\d+: /;
const SGLANG_OLD_GPU = /^\[gpu_id=(\d+)\] /;
const VLLM =
  /^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d+)? \[?[\w./-]+(?::\d+)?\] ?/;
/**
 * vLLM's frame with its stamp taken out by the paste (`INFO [core.py:58] msg`, `ERROR worker_base.py:148] msg` before 0.8, or
 * `INFO 12:00:01 [core.py:58]` with the date cut): the level and the logger's `[file.py:N]` (vllm/logger.py `_FORMAT`) are still its own.
 */
const VLLM_NO_STAMP =
  /^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (?:(\d{2}):(\d{2}):(\d{2})(?:\.\d+)? )?\[?[\w./-]+\.py:\d+\] ?/;
/** SGLang's frame with its stamp taken out and its rank tags kept (`[TP0] msg`, `[ TP3 EP3] msg`). */
const SGLANG_TAGS_ONLY =
  /^\[ ?((?:DP|PP|ATTN_CP|MOE_DP|TP|EP)\d+(?: (?:DP|PP|ATTN_CP|MOE_DP|TP|EP)\d+)*)\] ?/;
// logger.py: `[%m/%d/%Y-%H:%M:%S] [TRT-LLM] …`; the stamp may be taken out by the paste, the `[TRT-LLM]` tag is its own.
// A module's tag after the level may carry a colon: _torch/autotuner.py logged `[Autotuner]: Autotuning process
// ends` in mid-2025 builds, `[Autotuner] …` before and since.
const TRTLLM =
  /^(?:\[(\d{2})\/(\d{2})\/(\d{4})-(\d{2}):(\d{2}):(\d{2})\] )?\[TRT-LLM\](?: \[(?:RANK|MPI_Rank) (\d+)\])? \[([FEWIV])\](?: \[[^\]]+\]:?(?:\[RANK (\d+)\])?)? ?/;
const TRTLLM_CPP = /^\[TensorRT-LLM\]\[(INFO|WARNING|ERROR|DEBUG|TRACE|VERBOSE)\] (?:\[RANK (\d+)\] )?/;
const TGI =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z\s+(TRACE|DEBUG|INFO|WARN|ERROR)\s+/;
/**
 * TGI's frame with its stamp taken out by the paste (`ERROR batch{batch_size=1}:prefill: text_generation_client: …`,
 * `INFO shard-manager: text_generation_launcher: …`): tracing_subscriber's fmt layer writes `<time> <LEVEL> <spans>:
 * <target>: ` (launcher/src/main.rs main, router/src/logging.rs init_logging), and the target, TGI's crate, is still its own.
 */
const TGI_NO_STAMP =
  /^(TRACE|DEBUG|INFO|WARN|ERROR) +(?=(?:[\w-]+(?:\{[^}]*\})?:)* ?text_generation_\w+(?:::\w+)*: )/;
const LLAMACPP = /^(\d+)\.(\d{2})\.(\d{3})\.(\d{3}) ([IWEDT]) /;
const PYLOG =
  /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:[,.]\d+)? (?:- [\w.]+ - )?(DEBUG|INFO|WARNING|ERROR|CRITICAL)(?::| -)? /;
// glog's prefix, `Lmmdd hh:mm:ss.uuuuuu threadid file:line] `; glog 0.6+ (logging.cc, FLAGS_log_year_in_prefix, on by
// default) writes the year too: `I20240227 08:25:18.989490 35588 grpc_server.cc:2495] ` (Triton's builds of 2024)
const GLOG = /^([IWEF])(\d{4})?(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.\d+\s+\d+ [\w.-]+:\d+\] /;
/** A vLLM frame cut at the left by a paste: `[multiproc_executor.py:492] msg`. */
const FILE_ONLY = /^\[?[\w./-]+\.py:\d+\] /;
const UVICORN = /^(INFO|WARNING|ERROR|DEBUG|CRITICAL|TRACE):\s/;
/** The text before a line's message (its logger frame and wrappers); null where the message is not the line's tail. */
export function textBeforeMessage(line: LogLine): string | null {
  return line.text.endsWith(line.msg) ? line.text.slice(0, line.text.length - line.msg.length) : null;
}

/** `LEVEL PID [file.py:N] msg`: a python logger configured with `%(levelname)s %(process)d [%(filename)s:%(lineno)d]`. */
const LEVEL_PID = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d+) \[[\w./-]+\.py:\d+\] /;

type Level = LogLine['level'];
const LEVEL_WORD: Record<string, Level> = {
  DEBUG: 'debug',
  TRACE: 'debug',
  VERBOSE: 'debug',
  D: 'debug',
  T: 'debug',
  V: 'debug',
  INFO: 'info',
  I: 'info',
  WARNING: 'warning',
  WARN: 'warning',
  W: 'warning',
  ERROR: 'error',
  E: 'error',
  CRITICAL: 'critical',
  F: 'critical',
};

function utc(y: number, mo: number, d: number, h: number, mi: number, s: number, frac?: string): number {
  const base = Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
  return frac ? base + Number(`0.${frac}`) : base;
}

function blankLine(text: string, no = 0, offset = 0): LogLine {
  return {
    no,
    offset,
    text,
    msg: text,
    ts: null,
    rel: null,
    level: null,
    tags: null,
    pid: null,
    container: null,
    framed: false,
    frame: null,
  };
}

export function parseLine(text: string, no: number, offset: number, ctx: PrefixContext): LogLine {
  const line = blankLine(text, no, offset);
  // A line-number column (`cat -n`, `grep -n`) is the outermost wrapper (the tool ran on the file as it was),
  // and comes off first: `12: ` would read as an srun label.
  const numbered = ctx.wrap != null && ctx.wrap in NUMBER_GUTTERS ? learnedWrapper(ctx, text) : 0;
  let rest = peelWrappers(line, numbered > 0 ? text.slice(numbered) : text, ctx);
  // A wrapper learned from this file's earlier lines: peeled before the frame, and from continuation lines.
  const learned = numbered > 0 ? numbered : learnedWrapper(ctx, rest);
  if (learned > 0 && numbered === 0) rest = peelWrappers(line, rest.slice(learned), ctx);
  if (no === 1) rest = restoreCutLevel(rest);
  let frame = readFrame(line, rest, ctx);
  if (learned === 0 && (frame === null || GENERIC_FRAME.has(frame))) {
    // The engine's frame behind a prefix no one listed (an app's logger, a collector, a CI gutter).
    const base = frame === null ? rest : line.msg;
    const at = findInnerFrame(base, frame === null ? 1 : 0);
    if (at >= 0) {
      const inner = peelWrappers(line, base.slice(at), ctx);
      const got = readFrame(line, inner, ctx);
      // SGLang formats uvicorn's lines with its own `[%(asctime)s] %(levelprefix)s` (entrypoints/http_server.py):
      // a bare bracket stamp before `INFO:     ` is the engine's frame, not a wrapper to learn.
      if (got !== null || (frame !== 'bracket' && UVICORN.test(inner))) {
        let prefix = rest.slice(0, rest.length - inner.length);
        const stamp = got === null ? SGLANG_UVICORN_STAMP.exec(prefix) : null;
        if (stamp !== null && stamp.index > 0) {
          // The same behind a wrapper: the stamp stays the line's, the wrapper is what stands before it.
          prefix = prefix.slice(0, stamp.index);
          frame = readFrame(line, rest.slice(stamp.index), ctx);
          rest = frame === null ? inner : line.msg;
        } else {
          frame = got;
          rest = inner;
        }
        learnWrapper(ctx, prefix);
      }
    }
  }
  if (frame !== null && GENERIC_FRAME.has(frame)) {
    // An application's logger around a wrapped line (`… - INFO - (EngineCore pid=7) …`, `… - app  | …`): the
    // wrappers inside its message are peeled too, and an engine frame under them decides.
    const inner = peelWrappers(line, line.msg, ctx);
    const got = readFrame(line, inner, ctx);
    if (got !== null) frame = got;
    else if (inner !== line.msg) line.msg = inner;
  }
  if (frame === null) {
    line.msg = rest;
    // A continuation line under a learned wrapper: the wrapper's own stamp, if it has one, dates it.
    if (learned > 0 && line.ts === null) line.ts = wrapperStamp(text.slice(0, text.length - rest.length));
  }
  // Ray's `[repeated 3x across cluster]` is the forwarder's, not the engine's: off before the rules read it.
  if (line.pid !== null && line.msg.endsWith('cluster]')) line.msg = line.msg.replace(RAY_REPEATED, '');
  const msg = line.msg;
  if (frame === null) {
    const uv = UVICORN.exec(msg);
    if (uv) {
      line.level = LEVEL_WORD[uv[1]!] ?? null;
      line.framed = true;
      line.frame = 'uvicorn';
    }
  } else if (line.level === null) {
    const uv = UVICORN.exec(msg);
    if (uv) line.level = LEVEL_WORD[uv[1]!] ?? null;
  }
  // SGLang prints no level, continuation lines have none: read it from the message.
  if (line.level === null && msg !== '') line.level = inferLevel(msg);
  return line;
}

/** SGLang's stamp before uvicorn's lines (see parseLine), at the end of what stands before the `INFO:     `. */
const SGLANG_UVICORN_STAMP = /\[(?:\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}(?:\.\d+)?\] ?$/;

/**
 * What a Python traceback starts its lines with (the header, a frame, the exception), as printed; and rich's
 * rendering of one (rich/traceback.py: the panel's title, a frame's `path.py:N in fn`, a code line's `❱ N │`
 * gutter; reading/traceback.ts plainFromRich).
 */
const TRACEBACK_START =
  /^(?:Traceback \(most recent call last\):| {2}File "[^"]+", line \d+|(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Exit)(?::|$)|╭─+ Traceback \(most recent call last\)|│ (?:\S+\.py:\d+ in |(?:❱ | {2}) *\d+ │))/;

/** A line with the wrappers firedup knows taken off (where a learned wrapper would start). */
export function withoutKnownWrappers(text: string, year: number): string {
  return peelWrappers(blankLine(text), text, { year, wrap: null, wrapSeen: null });
}

/**
 * Whether a line reads as an engine's own from its first character, once the known wrappers are off: an
 * engine's logger frame, a uvicorn level, or a line of a Python traceback. Such a line carries no unknown
 * gutter (gutter.ts asks this of a line with and without one).
 */
export function startsReadable(text: string, year: number): boolean {
  const line = blankLine(text);
  const ctx: PrefixContext = { year, wrap: null, wrapSeen: null };
  const rest = peelWrappers(line, text, ctx);
  const frame = readFrame(line, rest, ctx);
  // A bare `[date time]` before uvicorn's `INFO:     ` is SGLang's own (see parseLine).
  if (frame === 'bracket') return UVICORN.test(line.msg);
  if (frame !== null) return !GENERIC_FRAME.has(frame);
  return TRACEBACK_START.test(rest) || UVICORN.test(rest);
}

const STAMP = /(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/;

function wrapperStamp(prefix: string): number | null {
  const m = STAMP.exec(prefix);
  return m ? utc(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : null;
}

/** Frames that other programs print too: an engine frame found inside such a line's message wins. */
const GENERIC_FRAME: ReadonlySet<LogFrame> = new Set<LogFrame>(['pylog', 'glog', 'file', 'bracket']);

/** A wrapper's ISO stamp (year to second in groups 1–6) dates the line, and gives the year of later stamps. */
function stampOf(line: LogLine, ctx: PrefixContext, m: RegExpExecArray): void {
  ctx.year = Number(m[1]);
  line.ts = utc(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
}

/** A syslog-style stamp (`Mar  4 05:06:07`, month name to second in groups 1–5), in the year known so far. */
function syslogStampOf(line: LogLine, ctx: PrefixContext, m: RegExpExecArray): void {
  line.ts = utc(ctx.year, MONTHS[m[1]!]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!);
}

/**
 * Peels the known wrappers (CI/container stamps, container runtime and Docker json-file lines, journald, `ts`,
 * srun labels, kubectl and compose gutters, Ray/vLLM process prefixes). Not a Markdown quote's `> `: loguru
 * marks the failing frame of a traceback so (`> File "…", line 1670, in warmup`: TGI's tracebacks).
 */
function peelWrappers(line: LogLine, text: string, ctx: PrefixContext): string {
  let rest = text;
  for (let guard = 0; guard < 4; guard++) {
    if (rest.startsWith('{"log":"')) {
      const rec = dockerJsonLine(rest);
      if (rec !== null) {
        if (rec.stamp) stampOf(line, ctx, rec.stamp);
        rest = rec.log;
        continue;
      }
    }
    let m = JOURNALD_ISO.exec(rest);
    if (m) {
      stampOf(line, ctx, m);
      if (m[7] ?? m[8]) line.pid = Number(m[7] ?? m[8]);
      rest = rest.slice(m[0].length);
      continue;
    }
    m = CRI.exec(rest) ?? CI_STAMP.exec(rest);
    if (m) {
      stampOf(line, ctx, m);
      rest = rest.slice(m[0].length);
      continue;
    }
    m = JOURNALD.exec(rest);
    if (m && MONTHS[m[1]!]) {
      syslogStampOf(line, ctx, m);
      if (m[6]) line.pid = Number(m[6]);
      rest = rest.slice(m[0].length);
      continue;
    }
    m = TS_STAMP.exec(rest);
    if (m && MONTHS[m[1]!]) {
      syslogStampOf(line, ctx, m);
      rest = rest.slice(m[0].length);
      continue;
    }
    m = SRUN_LABEL.exec(rest);
    if (m) {
      line.tags ??= `task${m[1]}`;
      rest = rest.slice(m[0].length);
      continue;
    }
    m = rest.charCodeAt(0) === 91 /* [ */ ? KUBECTL_PREFIX.exec(rest) : null;
    if (m) {
      line.container = line.service = m[1]!;
      rest = rest.slice(m[0].length);
      continue;
    }
    m = COMPOSE.exec(rest);
    if (m) {
      line.container = line.service = m[1]!;
      rest = rest.slice(m[0].length);
      continue;
    }
    m = COLLECTOR.exec(rest);
    if (m) {
      line.container ??= m[1]!;
      rest = rest.slice(m[0].length);
      continue;
    }
    m = PROCESS.exec(rest);
    if (m) {
      if (m[1] !== undefined) line.tags = m[1];
      line.pid = Number(m[2]);
      if (m[3] !== undefined) line.ip = m[3];
      rest = rest.slice(m[0].length);
      continue;
    }
    m = rest.charCodeAt(0) === 40 /* ( */ && rest.charCodeAt(1) === 114 /* r */ ? RAYLET.exec(rest) : null;
    if (m) {
      line.tags = m[1]!;
      if (m[2] !== undefined) line.ip = m[2];
      rest = rest.slice(m[0].length);
      continue;
    }
    m = LOCALAI_RELAY.exec(rest);
    if (m) {
      rest = rest.slice(m[0].length);
      continue;
    }
    break;
  }
  return rest;
}

const ISO_STAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/;

/**
 * A line of Docker's json-file log (what `docker logs` reads, kept under /var/lib/docker/containers): one JSON
 * object per line, `{"log":"<the line>\n","stream":"stderr","time":"<RFC 3339>"}` (moby daemon/logger/jsonfilelog,
 * jsonlog.JSONLog). The line comes back as a plain file's would: without its newline and terminal escapes, and of
 * a `\r` run (a progress bar redrawn in place) the last state, as the splitter keeps it. Null for other JSON.
 */
function dockerJsonLine(text: string): { log: string; stamp: RegExpExecArray | null } | null {
  let rec: unknown;
  try {
    rec = JSON.parse(text);
  } catch {
    return null;
  }
  const { log, time } = (rec ?? {}) as { log?: unknown; time?: unknown };
  if (typeof log !== 'string') return null;
  let line = log.endsWith('\n') ? log.slice(0, -1) : log;
  if (line.endsWith('\r')) line = line.slice(0, -1);
  const cr = line.lastIndexOf('\r');
  if (cr >= 0) line = line.slice(cr + 1);
  // The escapes' bodies (`[2m`) were stripped from the JSON text as remnants when it was decoded: their ESC
  // bytes, written `\u001b` there, come out of the JSON alone.
  const clean = cleanText(line);
  return {
    log: clean.includes('\x1b') ? clean.replace(/\x1b/g, '') : clean,
    stamp: typeof time === 'string' ? ISO_STAMP.exec(time) : null,
  };
}

/** The level words a Python logger's frame starts with (vLLM's, `LEVEL PID [file]`). */
const LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'];
/** The tail of a level word before the rest of such a frame: a date and time, a pid, or a `file.py:N]`. */
const CUT_LEVEL =
  /^([A-Z]{2,7}) (?=\d{2}-\d{2} \d{2}:\d{2}:\d{2}[ .]|\d+ \[[\w./-]+\.py:\d+\] |\[?[\w./-]+\.py:\d+\] )/;

/**
 * A paste that starts mid-line cuts its first line's level word (`NING 04-01 02:45:50 ray_utils.py:320] …`, the
 * tail of `WARNING`): the word is whole again when the tail is the end of exactly one level word, so the frame
 * after it reads as it would have.
 */
function restoreCutLevel(rest: string): string {
  const m = CUT_LEVEL.exec(rest);
  if (m === null) return rest;
  const tail = m[1]!;
  const words = LEVELS.filter((w) => w.length > tail.length && w.endsWith(tail));
  return words.length === 1 ? words[0]!.slice(0, words[0]!.length - tail.length) + rest : rest;
}

/** Reads the logger frame at the start of `rest` into `line` (msg, ts, level, tags); null when there is none. */
function readFrame(line: LogLine, rest: string, ctx: PrefixContext): LogFrame | null {
  let m: RegExpExecArray | null;
  let frame: LogFrame;
  if (rest.charCodeAt(0) === 91 /* [ */ && (m = SGLANG.exec(rest))) {
    if (m[1]) {
      ctx.year = Number(m[1]);
      line.ts = utc(+m[1], +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!, m[7]);
    } else if (m[2]) {
      line.ts = utc(ctx.year, +m[2], +m[3]!, +m[4]!, +m[5]!, +m[6]!, m[7]);
    } else if (line.ts === null) {
      // Pre-v0.3.4 stamps carry no date: keep the time of day, so durations still come out right.
      line.ts = +m[4]! * 3600 + +m[5]! * 60 + +m[6]! + (m[7] ? Number(`0.${m[7]}`) : 0);
    }
    const rank = m[8]?.trim();
    if (rank) line.tags = line.tags ? `${line.tags} ${rank}` : rank;
    rest = rest.slice(m[0].length);
    const lv = SGLANG_LEVEL.exec(rest);
    if (lv) {
      line.level = LEVEL_WORD[lv[1]!] ?? null;
      rest = rest.slice(lv[0].length);
    }
    // `[date time]` alone is a stamp many programs print; with rank tags or its `LEVEL file.py:N:` it is SGLang's.
    frame = rank || lv ? 'sglang' : 'bracket';
  } else if ((m = VLLM.exec(rest))) {
    line.level = LEVEL_WORD[m[1]!] ?? null;
    line.ts = utc(ctx.year, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
    rest = rest.slice(m[0].length);
    frame = 'vllm';
  } else if ((m = TRTLLM.exec(rest))) {
    if (m[3] !== undefined) {
      ctx.year = Number(m[3]);
      line.ts = utc(+m[3]!, +m[1]!, +m[2]!, +m[4]!, +m[5]!, +m[6]!);
    }
    line.level = LEVEL_WORD[m[8]!] ?? null;
    const rank = m[7] ?? m[9];
    if (rank) line.tags = `rank ${rank}`;
    rest = rest.slice(m[0].length);
    frame = 'trtllm';
  } else if ((m = TRTLLM_CPP.exec(rest))) {
    line.level = LEVEL_WORD[m[1]!] ?? null;
    if (m[2]) line.tags = `rank ${m[2]}`;
    rest = rest.slice(m[0].length);
    frame = 'trtllm';
  } else if ((m = TGI.exec(rest))) {
    ctx.year = Number(m[1]);
    line.ts = utc(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!, m[7]);
    line.level = LEVEL_WORD[m[8]!] ?? null;
    rest = rest.slice(m[0].length);
    frame = 'tgi';
  } else if ((m = LLAMACPP.exec(rest))) {
    line.rel = +m[1]! * 60 + +m[2]! + +m[3]! / 1000 + +m[4]! / 1e6;
    line.level = LEVEL_WORD[m[5]!] ?? null;
    rest = rest.slice(m[0].length);
    frame = 'llamacpp';
  } else if ((m = PYLOG.exec(rest))) {
    ctx.year = Number(m[1]);
    line.ts = utc(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
    line.level = LEVEL_WORD[m[7]!] ?? null;
    rest = rest.slice(m[0].length);
    frame = 'pylog';
  } else if ((m = GLOG.exec(rest))) {
    line.level = LEVEL_WORD[m[1]!] ?? null;
    if (m[2] !== undefined) ctx.year = Number(m[2]);
    line.ts = utc(ctx.year, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!);
    rest = rest.slice(m[0].length);
    frame = 'glog';
  } else if ((m = LEVEL_PID.exec(rest))) {
    line.level = LEVEL_WORD[m[1]!] ?? null;
    line.pid = Number(m[2]);
    rest = rest.slice(m[0].length);
    frame = 'pylog';
  } else if ((m = VLLM_NO_STAMP.exec(rest))) {
    line.level = LEVEL_WORD[m[1]!] ?? null;
    rest = rest.slice(m[0].length);
    frame = 'vllm';
  } else if ((m = TGI_NO_STAMP.exec(rest))) {
    line.level = LEVEL_WORD[m[1]!] ?? null;
    rest = rest.slice(m[0].length);
    frame = 'tgi';
  } else if (rest.charCodeAt(0) === 91 /* [ */ && (m = SGLANG_TAGS_ONLY.exec(rest))) {
    line.tags = line.tags ? `${line.tags} ${m[1]}` : m[1]!;
    rest = rest.slice(m[0].length);
    frame = 'sglang';
  } else if ((m = FILE_ONLY.exec(rest))) {
    rest = rest.slice(m[0].length);
    frame = 'file';
  } else if ((m = SGLANG_OLD_GPU.exec(rest))) {
    line.tags = `gpu${m[1]}`;
    rest = rest.slice(m[0].length);
    frame = 'sglang';
  } else return null;
  line.msg = rest;
  line.framed = true;
  line.frame = frame;
  return frame;
}

/** A message's words that say it is an error, or a warning (most messages hold none of their literals: gated). */
const ERROR_WORDS = new GatedPattern(
  /^Traceback \(most recent call last\)|\b\w*(?:Error|Exception)\b:|\bhit an exception\b|\bfailed\b|\bFatal\b/,
);

const WARNING_WORDS = new GatedPattern(/\bwarn(?:ing)?\b|deprecated/i);

/** Level for engines that print none (SGLang): read from the message. */
export function inferLevel(msg: string): LogLine['level'] {
  if (ERROR_WORDS.test(msg)) return 'error';
  if (WARNING_WORDS.test(msg)) return 'warning';
  return 'info';
}
