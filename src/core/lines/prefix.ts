/**
 * Reads the wrappers and the logger prefix of a cleaned line: container gutters, CI/journald stamps,
 * vLLM/Ray process prefixes, then the engine's own `[ts tags]` / `LEVEL MM-DD ts [file:N]` / ... frame.
 * What remains is the message, which the engine signatures match.
 */
import type { LogLine } from '../types.js';

export interface PrefixContext {
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

const CI_STAMP =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}) (?!\s*(?:TRACE|DEBUG|INFO|WARN|ERROR)\s)/;
const JOURNALD = /^([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) \S+ [^\s:[]+(?:\[(\d+)\])?: /;
const COMPOSE = /^(\[?[\w][\w.-]*\]?)\s+\|(?: |$)/;
const PROCESS =
  /^\(([A-Za-z][\w-]*(?: (?:rank=\d+|[A-Z]+\d+(?:_[A-Z]+\d+)*))?) pid=(\d+)(?:, ip=[\d.]+)?\) ?/;

const SGLANG =
  /^\[(?:(\d{4})-(\d{2})-(\d{2}) )?(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?((?: (?:DP|PP|ATTN_CP|MOE_DP|TP|EP)\d+)*)(?: [\w[\]]+)?\] ?/;
const SGLANG_LEVEL = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w./-]+\.py:\d+: /;
const SGLANG_OLD_GPU = /^\[gpu_id=(\d+)\] /;
const VLLM =
  /^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d+)? \[?[\w./-]+(?::\d+)?\] ?/;
const TRTLLM =
  /^\[(\d{2})\/(\d{2})\/(\d{4})-(\d{2}):(\d{2}):(\d{2})\] \[TRT-LLM\](?: \[(?:RANK|MPI_Rank) (\d+)\])? \[([FEWIV])\](?: \[[^\]]+\](?:\[RANK (\d+)\])?)? ?/;
const TRTLLM_CPP = /^\[TensorRT-LLM\]\[(INFO|WARNING|ERROR|DEBUG|TRACE|VERBOSE)\] (?:\[RANK (\d+)\] )?/;
const TGI =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z\s+(TRACE|DEBUG|INFO|WARN|ERROR)\s+/;
const LLAMACPP = /^(\d+)\.(\d{2})\.(\d{3})\.(\d{3}) ([IWEDT]) /;
const PYLOG =
  /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:[,.]\d+)? (?:- [\w.]+ - )?(DEBUG|INFO|WARNING|ERROR|CRITICAL)(?::| -)? /;
const GLOG = /^([IWEF])(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.\d+\s+\d+ [\w.-]+:\d+\] /;
/** A vLLM frame cut at the left by a paste: `[multiproc_executor.py:492] msg`. */
const FILE_ONLY = /^\[?[\w./-]+\.py:\d+\] /;
const UVICORN = /^(INFO|WARNING|ERROR|DEBUG|CRITICAL|TRACE):\s/;

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

export function parseLine(text: string, no: number, offset: number, ctx: PrefixContext): LogLine {
  let rest = text;
  let ts: number | null = null;
  let rel: number | null = null;
  let level: Level = null;
  let tags: string | null = null;
  let pid: number | null = null;
  let container: string | null = null;
  let framed = false;

  for (let guard = 0; guard < 4; guard++) {
    let m = CI_STAMP.exec(rest);
    if (m) {
      ctx.year = Number(m[1]);
      ts = utc(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
      rest = rest.slice(m[0].length);
      continue;
    }
    m = JOURNALD.exec(rest);
    if (m && MONTHS[m[1]!]) {
      ts = utc(ctx.year, MONTHS[m[1]!]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!);
      if (m[6]) pid = Number(m[6]);
      rest = rest.slice(m[0].length);
      continue;
    }
    m = COMPOSE.exec(rest);
    if (m) {
      container = m[1]!;
      rest = rest.slice(m[0].length);
      continue;
    }
    m = PROCESS.exec(rest);
    if (m) {
      tags = m[1]!;
      pid = Number(m[2]);
      rest = rest.slice(m[0].length);
      continue;
    }
    break;
  }

  let m: RegExpExecArray | null;
  if (rest.charCodeAt(0) === 91 /* [ */ && (m = SGLANG.exec(rest))) {
    if (m[1]) {
      ctx.year = Number(m[1]);
      ts = utc(+m[1], +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!, m[7]);
    } else if (ts === null) {
      // Pre-v0.3.4 stamps carry no date: keep the time of day, so durations still come out right.
      ts = +m[4]! * 3600 + +m[5]! * 60 + +m[6]! + (m[7] ? Number(`0.${m[7]}`) : 0);
    }
    const rank = m[8]?.trim();
    if (rank) tags = tags ? `${tags} ${rank}` : rank;
    rest = rest.slice(m[0].length);
    const lv = SGLANG_LEVEL.exec(rest);
    if (lv) {
      level = LEVEL_WORD[lv[1]!] ?? null;
      rest = rest.slice(lv[0].length);
    }
    framed = true;
  } else if ((m = VLLM.exec(rest))) {
    level = LEVEL_WORD[m[1]!] ?? null;
    ts = utc(ctx.year, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
    rest = rest.slice(m[0].length);
    framed = true;
  } else if ((m = TRTLLM.exec(rest))) {
    ctx.year = Number(m[3]);
    ts = utc(+m[3]!, +m[1]!, +m[2]!, +m[4]!, +m[5]!, +m[6]!);
    level = LEVEL_WORD[m[8]!] ?? null;
    const rank = m[7] ?? m[9];
    if (rank) tags = `rank ${rank}`;
    rest = rest.slice(m[0].length);
    framed = true;
  } else if ((m = TRTLLM_CPP.exec(rest))) {
    level = LEVEL_WORD[m[1]!] ?? null;
    if (m[2]) tags = `rank ${m[2]}`;
    rest = rest.slice(m[0].length);
    framed = true;
  } else if ((m = TGI.exec(rest))) {
    ctx.year = Number(m[1]);
    ts = utc(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!, m[7]);
    level = LEVEL_WORD[m[8]!] ?? null;
    rest = rest.slice(m[0].length);
    framed = true;
  } else if ((m = LLAMACPP.exec(rest))) {
    rel = +m[1]! * 60 + +m[2]! + +m[3]! / 1000 + +m[4]! / 1e6;
    level = LEVEL_WORD[m[5]!] ?? null;
    rest = rest.slice(m[0].length);
    framed = true;
  } else if ((m = PYLOG.exec(rest))) {
    ctx.year = Number(m[1]);
    ts = utc(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
    level = LEVEL_WORD[m[7]!] ?? null;
    rest = rest.slice(m[0].length);
    framed = true;
  } else if ((m = GLOG.exec(rest))) {
    level = LEVEL_WORD[m[1]!] ?? null;
    ts = utc(ctx.year, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
    rest = rest.slice(m[0].length);
    framed = true;
  } else if ((m = FILE_ONLY.exec(rest))) {
    rest = rest.slice(m[0].length);
    framed = true;
  } else if ((m = SGLANG_OLD_GPU.exec(rest))) {
    tags = `gpu${m[1]}`;
    rest = rest.slice(m[0].length);
    framed = true;
  }
  if (!framed) {
    const uv = UVICORN.exec(rest);
    if (uv) {
      level = LEVEL_WORD[uv[1]!] ?? null;
      framed = true;
    }
  } else if (level === null) {
    const uv = UVICORN.exec(rest);
    if (uv) level = LEVEL_WORD[uv[1]!] ?? null;
  }
  // SGLang prints no level, continuation lines have none: read it from the message.
  if (level === null && rest !== '') level = inferLevel(rest);
  return { no, offset, text, msg: rest, ts, rel, level, tags, pid, container, framed };
}

/** Level for engines that print none (SGLang): read from the message. */
export function inferLevel(msg: string): LogLine['level'] {
  if (
    /^Traceback \(most recent call last\)|\b\w*(?:Error|Exception)\b:|\bhit an exception\b|\bfailed\b|\bFatal\b/.test(
      msg,
    )
  )
    return 'error';
  if (/\bwarn(?:ing)?\b|deprecated/i.test(msg)) return 'warning';
  return 'info';
}
