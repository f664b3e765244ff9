/**
 * A log record written as JSON, one object a line, whose message or exception field holds several lines (a
 * traceback) written with escaped newlines: the lines it encodes, so the traceback inside is read as if printed.
 *
 * The shapes, each from its logger's own writer:
 * - tracing_subscriber's json formatter (TGI's launcher and router with --json-output, launcher/src/main.rs,
 *   router/src/logging.rs): `{"timestamp","level","fields":{"message",…},"target","span","spans"}`; its first
 *   line comes back in the plain formatter's shape (`<time> <LEVEL> <target>: <message>`), TGI's own frame;
 * - python-json-logger's JsonFormatter (and NIM's logger after it): `{"message",…,"exc_info","stack_info"}`,
 *   the traceback in exc_info (logging.Formatter.formatException), `"None"` where there is none;
 * - structlog's JSONRenderer after format_exc_info: `{"event",…,"exception"}`.
 * A wrapper's text before the object (a collector's stamp, a compose gutter) is kept before each line.
 * Records with no newline in those fields are left whole (engine rules read some as they are: TGI's
 * `"message":"Connected"`), and so is Docker's json-file record (`{"log":…}`, peeled in prefix.ts).
 *
 * A record cut by the paste (its head or its end missing) cannot be parsed; where its text still shows a
 * traceback's escaped lines (`\n  File \"…`), those are unescaped the same way.
 */

const TRACEBACK_ESCAPED = /\\n(?:Traceback \(most recent call last\):|\s+File \\")/;

/** The lines a JSON record (or a cut record's traceback text) on this line encodes; null when it holds none. */
export function jsonRecordLines(text: string): string[] | null {
  // (callers test for the escaped newline first: most lines have none)
  const at = text.indexOf('{"');
  if (at >= 0 && !text.startsWith('"log":"', at + 1)) {
    const rec = parseRecord(text.slice(at));
    if (rec !== null) return recordLines(rec, text.slice(0, at));
  }
  if (!TRACEBACK_ESCAPED.test(text)) return null;
  // the field's opening quote before a traceback's header: the header starts a line of its own
  return unescapeJson(text.replace(/"(?=Traceback \(most recent call last\):\\n)/, '\n'))
    .split('\n')
    .map((l) => l.trimEnd());
}

type Rec = Record<string, unknown>;

function parseRecord(s: string): Rec | null {
  const end = s.trimEnd();
  if (end.charCodeAt(end.length - 1) !== 125 /* } */) return null;
  try {
    const v: unknown = JSON.parse(end);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : null;
  } catch {
    return null;
  }
}

const str = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' && v !== 'None' && v !== 'null' ? v : null;

function recordLines(rec: Rec, prefix: string): string[] | null {
  const fields = rec.fields !== null && typeof rec.fields === 'object' ? (rec.fields as Rec) : null;
  const message = str(fields?.message) ?? str(rec.message) ?? str(rec.event) ?? str(rec.msg);
  const exc = str(rec.exc_info) ?? str(rec.exception) ?? str(rec.exc_text);
  const stack = str(rec.stack_info);
  if (!message?.includes('\n') && exc === null && !stack?.includes('\n')) return null;
  const out: string[] = [];
  const push = (block: string) => {
    for (const l of block.split('\n')) out.push(prefix + l.trimEnd());
  };
  if (message !== null) {
    const level = str(rec.level) ?? str(rec.levelname);
    const target = str(rec.target);
    const ts = str(rec.timestamp);
    // tracing's json record: its first line in the plain formatter's shape, which TGI's rules read
    if (fields !== null && target !== null && ts !== null && level !== null) {
      const [first, ...rest] = message.split('\n');
      out.push(`${prefix}${ts} ${level.padStart(5)} ${target}: ${first!.trimEnd()}`);
      for (const l of rest) out.push(prefix + l.trimEnd());
    } else push(message);
  }
  if (stack !== null) push(stack);
  if (exc !== null) push(exc);
  return out.length ? out : null;
}

/** A JSON string's body (without its quotes) as the text it encodes; escapes it does not know are kept. */
function unescapeJson(s: string): string {
  return s.replace(/\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g, (m, hex: string | undefined, c: string) => {
    if (hex !== undefined) return String.fromCharCode(Number.parseInt(hex, 16));
    switch (c) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '';
      case 'b':
      case 'f':
        return '';
      default:
        return c ?? m;
    }
  });
}
