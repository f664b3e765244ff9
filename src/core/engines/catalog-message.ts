/**
 * The message a catalog template matches, taken out of the logger frame the engine or program prints it in.
 * Idempotent: a message already taken out (the analyzer's prefix parse) comes back as it is.
 */

/**
 * llama.cpp server_log (examples/server/utils.hpp, server.cpp before 2024-10): `--log-format json` (the default)
 * prints `{"tid":…,"timestamp":…,"level":"INFO","function":"main","line":N,"msg":"model loaded",…}` (2023:
 * `"message"`), the text format `INFO [            main] model loaded | tid="…" timestamp=…`.
 */
const SERVER_LOG_JSON = /^\{.*?"(?:msg|message)":"((?:[^"\\]|\\.)*)"/;
const SERVER_LOG_TEXT = /^(?:INFO|WARN|WARNING|ERR|ERROR|VERB) \[ *[\w:~]+\] (.*?)(?: \| .*)?$/;
/** common/log.cpp with --log-prefix / --log-timestamps: `0.00.035.060 I msg`, `I msg`. */
const COMMON_LOG_PREFIX = /^(?:\d+\.\d{2}\.\d{3}\.\d{3} )?[IWEDC] (?=\S)/;
/** Go's standard logger (log.Printf, LstdFlags, Lshortfile where set): `2024/04/16 10:00:00 [file.go:N: ]msg`. */
const GO_LOG = /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d(?:\.\d+)? (?:[\w.-]+\.go:\d+: )?/;
/** Go log/slog text handler (Ollama): `time=… level=INFO source=file.go:N msg="…" key=value …`. */
const SLOG = /(?:^|\s)level=[A-Z]+(?:[+-]\d+)?\s(?:source=\S+\s)?msg=(?:"((?:[^"\\]|\\.)*)"|(\S+))/;
/**
 * LMDeploy's logger (lmdeploy/utils.py get_logger): `%(asctime)s - %(name)s - %(levelname)s - %(message)s`
 * (2024), with ` - [pid=N ppid=N]` (multi-process) and ` - %(filename)s:%(lineno)d` (2025-26) before the
 * message; ColorFormatter colours the level.
 */
const LMDEPLOY_LOGGER =
  /^(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)? - )?[\w.]+ - (?:\x1b\[[\d;]*m)?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)(?:\x1b\[[\d;]*m)? - (?:\[pid=\d+ ppid=\d+\] - )?(?:[\w.-]+\.py:\d+ - )?/;
/** TurboMind's C++ logger: `[TM][INFO] msg` (2024-25), `[TM][INFO][0101 10:00:00.123456][file.cc:12] msg` (2026). */
const TURBOMIND = /^\[TM\](?:\[[^\]]*\]){1,3} ?/;

function unquote(s: string): string {
  try {
    return JSON.parse(`"${s}"`) as string;
  } catch {
    return s;
  }
}

function llamacppMessage(text: string): string {
  let m = SERVER_LOG_JSON.exec(text);
  if (m) return unquote(m[1]!);
  m = SERVER_LOG_TEXT.exec(text);
  if (m) return m[1]!;
  return text.replace(COMMON_LOG_PREFIX, '');
}

/** The message of `text` as the catalog of `key` (an engine or a program) holds it. */
export function catalogMessage(key: string, text: string): string {
  switch (key) {
    case 'llamacpp':
      return llamacppMessage(text);
    case 'ollama': {
      const m = SLOG.exec(text);
      if (m) return m[1] !== undefined ? unquote(m[1]) : m[2]!;
      // the runner's own lines, relayed raw (v0.1.x: the C++ ext_server's server_log)
      return llamacppMessage(text.replace(GO_LOG, ''));
    }
    case 'lmdeploy':
      return text.replace(LMDEPLOY_LOGGER, '').replace(TURBOMIND, '');
    default:
      return text;
  }
}
