/**
 * `docker logs --timestamps` as a log: the stamps peeled, stdout and stderr put back in one order, and a cursor
 * (the last stamp read, and how many lines carried it) from which the next read continues with `--since`.
 *
 * The docker CLI splits the daemon's one stream into its stdout and stderr, which reach us through two pipes:
 * the order between them is lost, but every line carries the daemon's stamp (RFC 3339, fixed 9-digit nanoseconds,
 * UTC: it sorts as text), so the two are merged by it. A line waits until the other pipe has shown a later stamp,
 * has ended, or has been quiet for HOLD_MS (its earlier lines were written to the pipe before this one was).
 */
import type { Readable } from 'node:stream';

/** Where a read stopped: the stamp of the last line and how many lines carried exactly that stamp. */
export interface DockerCursor {
  ts: string;
  n: number;
}

const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) /;
/**
 * A line longer than 16 KiB is kept by the daemon's log drivers (json-file, local, journald) as several entries, all
 * but the last "partial", cut at exactly this many bytes (the copier's buffer). `docker logs --timestamps` prints each
 * entry's own stamp and no newline between them: the line comes back whole but for a stamp every 16 KiB, which
 * is peeled here (a 40 KiB `server_args=…` line is read as one line).
 */
export const PARTIAL_BYTES = 16 * 1024;
/** docker's own stamp as it prints it (RFC 3339, nine fixed digits of nanoseconds, UTC), then the space. */
const FIXED_STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z $/;
const FIXED_STAMP_LEN = '2006-01-02T15:04:05.000000000Z '.length;
/** How long a line of one pipe waits for the other pipe's earlier lines. */
export const HOLD_MS = 60;

export function cursorText(c: DockerCursor | null): string | null {
  return c ? `docker-since:${c.ts}#${c.n}` : null;
}

export function parseCursor(s: string | null | undefined): DockerCursor | null {
  const m = /^docker-since:(\S+)#(\d+)$/.exec(s ?? '');
  return m ? { ts: m[1]!, n: Number(m[2]) } : null;
}

/** Epoch seconds of a docker stamp (to the millisecond). */
export function stampSeconds(ts: string): number {
  return Date.parse(ts.replace(/(\.\d{3})\d*Z$/, '$1Z')) / 1000;
}

interface Line {
  ts: string;
  text: Buffer;
  at: number;
}

/** Splits one pipe's bytes into stamped lines (a line without a stamp keeps the previous one's). */
class StampedLines {
  private rest: Buffer = Buffer.alloc(0);
  private lastTs = '';
  readonly lines: Line[] = [];
  ended = false;
  /** The newest stamp this pipe has shown (its lines come in stamp order). */
  seen = '';
  lastAt = 0;

  push(chunk: Buffer, now: number): void {
    const buf = this.rest.length ? Buffer.concat([this.rest, chunk]) : chunk;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0) break;
      this.line(buf.subarray(start, nl + 1), now);
      start = nl + 1;
    }
    this.rest = Buffer.from(buf.subarray(start));
    this.lastAt = now;
  }

  end(now: number): void {
    if (this.rest.length) this.line(Buffer.concat([this.rest, Buffer.from('\n')]), now);
    this.rest = Buffer.alloc(0);
    this.ended = true;
  }

  private line(b: Buffer, now: number): void {
    const head = b.subarray(0, 40).toString('latin1');
    const m = STAMP.exec(head);
    const ts = m ? m[1]! : this.lastTs;
    const text = m ? joinPartials(b.subarray(m[0].length)) : b;
    this.lastTs = ts;
    this.seen = ts;
    this.lines.push({ ts, text: Buffer.from(text), at: now });
  }
}

/** A line's text with the stamps of its continuation entries (one every PARTIAL_BYTES) taken out. */
export function joinPartials(text: Buffer): Buffer {
  if (text.length <= PARTIAL_BYTES + FIXED_STAMP_LEN) return text;
  const parts: Buffer[] = [];
  let rest = text;
  while (
    rest.length > PARTIAL_BYTES + FIXED_STAMP_LEN &&
    FIXED_STAMP.test(rest.subarray(PARTIAL_BYTES, PARTIAL_BYTES + FIXED_STAMP_LEN).toString('latin1'))
  ) {
    parts.push(rest.subarray(0, PARTIAL_BYTES));
    rest = rest.subarray(PARTIAL_BYTES + FIXED_STAMP_LEN);
  }
  if (!parts.length) return text;
  parts.push(rest);
  return Buffer.concat(parts);
}

/**
 * Merges a `docker logs --timestamps` child's two pipes into one stream of peeled lines in stamp order, skipping
 * what a cursor says was read already. `onLines` gets each batch; `cursor` is where the lines given so far end.
 */
export class DockerLogMerge {
  private readonly pipes = [new StampedLines(), new StampedLines()];
  private skip: DockerCursor | null;
  cursor: DockerCursor | null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    from: DockerCursor | null,
    private readonly onLines: (text: Buffer, cursor: DockerCursor) => void,
  ) {
    this.skip = from;
    this.cursor = from;
  }

  /** Reads `out` and `err` (a child's stdout and stderr); resolves once both have ended and all is given. */
  attach(out: Readable, err: Readable): Promise<void> {
    const ends = [out, err].map(
      (s, i) =>
        new Promise<void>((resolve) => {
          s.on('data', (b: Buffer) => {
            this.pipes[i]!.push(b, Date.now());
            this.drain();
          });
          s.once('close', () => {
            this.pipes[i]!.end(Date.now());
            this.drain();
            resolve();
          });
        }),
    );
    return Promise.all(ends).then(() => {
      this.drain();
      if (this.timer) clearTimeout(this.timer);
    });
  }

  /** Gives every line whose turn has come; schedules a look for the ones held for the other pipe. */
  drain(): void {
    const [a, b] = this.pipes as [StampedLines, StampedLines];
    const now = Date.now();
    const out: Buffer[] = [];
    for (;;) {
      const x = a.lines[0];
      const y = b.lines[0];
      let take: StampedLines | null = null;
      if (x && y) take = y.ts < x.ts ? b : a;
      else if (x) take = b.ended || b.seen >= x.ts || now - x.at >= HOLD_MS ? a : null;
      else if (y) take = a.ended || a.seen > y.ts || now - y.at >= HOLD_MS ? b : null;
      if (!take) break;
      const l = take.lines.shift()!;
      if (this.skip) {
        if (l.ts < this.skip.ts) continue;
        if (l.ts === this.skip.ts && this.skip.n > 0) {
          this.skip = { ts: this.skip.ts, n: this.skip.n - 1 };
          continue;
        }
        this.skip = null;
      }
      this.cursor =
        this.cursor && this.cursor.ts === l.ts ? { ts: l.ts, n: this.cursor.n + 1 } : { ts: l.ts, n: 1 };
      out.push(l.text);
    }
    if (out.length) this.onLines(Buffer.concat(out), this.cursor!);
    if ((a.lines.length || b.lines.length) && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.drain();
      }, HOLD_MS);
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** `docker logs` arguments: stamped, from the cursor's stamp on (inclusive: the cursor says how many to skip). */
export function logsArgs(name: string, from: DockerCursor | null, follow: boolean): string[] {
  return [
    'logs',
    '--timestamps',
    ...(follow ? ['--follow'] : []),
    ...(from ? ['--since', from.ts] : []),
    '--',
    name,
  ];
}
