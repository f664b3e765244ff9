/**
 * Splits a byte stream into physical lines without decoding it.
 *
 * Lines are handed out as views into the caller's chunk (no copy) so that the hot path can look at bytes
 * before deciding whether a line is worth decoding at all. Only a line that spans two chunks is copied,
 * into a carry buffer bounded by `maxLine`: a 200 MB line costs `maxLine` bytes, and the lines after it
 * are not lost.
 */
export type RawLineSink = (
  buf: Buffer,
  start: number,
  end: number,
  no: number,
  offset: number,
  truncated: boolean,
) => void;

export const DEFAULT_MAX_LINE = 64 * 1024;

/**
 * Offered the rest of a chunk at each line start; reads as many whole lines as it can and returns the
 * position after them (or `start` to decline), with the number of lines read in `lines`.
 */
export interface BulkLineReader {
  lines: number;
  /** Called at each push, before any read of that chunk. */
  newChunk?(): void;
  read(buf: Buffer, start: number, end: number, lineNo: number, offset: number): number;
  /** Room for the next chunk where `read` finds it without a copy (see BulkReader.inputBuffer). */
  inputBuffer?(len: number): Buffer;
}

export class LineSplitter {
  private carry: Buffer;
  private carryLen = 0;
  private carryTruncated = false;
  private pending = false;
  private lineNo = 0;
  /** Byte offset, in the whole input, of the start of the line being assembled. */
  private lineStart = 0;
  private consumed = 0;

  constructor(
    private readonly sink: RawLineSink,
    private readonly maxLine = DEFAULT_MAX_LINE,
    private readonly bulk: BulkLineReader | null = null,
  ) {
    this.carry = Buffer.allocUnsafe(Math.min(maxLine, 4096));
  }

  /** Bytes seen so far. */
  get bytes(): number {
    return this.consumed;
  }

  /** Complete lines emitted so far. */
  get lines(): number {
    return this.lineNo;
  }

  /** Holds the start of a line whose newline has not come yet. */
  get midLine(): boolean {
    return this.pending;
  }

  push(chunk: Uint8Array): void {
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const base = this.consumed;
    this.consumed += buf.length;
    let s = 0;
    if (this.pending) {
      const e = buf.indexOf(10);
      if (e < 0) {
        this.append(buf, 0, buf.length);
        return;
      }
      this.append(buf, 0, e);
      this.pending = false;
      this.lineNo++;
      this.flushCarry();
      s = e + 1;
    }
    const max = this.maxLine;
    const bulk = this.bulk;
    bulk?.newChunk?.();
    for (;;) {
      if (bulk !== null) {
        const next = bulk.read(buf, s, buf.length, this.lineNo, base + s);
        if (next !== s) {
          this.lineNo += bulk.lines;
          s = next;
          // A reader stops where its room for one call's results ends (rank tags, series) as well as at a line
          // it does not take: offered again, it goes on, where the general path would take a line it reads too.
          if (bulk.lines > 0) continue;
        }
      }
      const e = buf.indexOf(10, s);
      if (e < 0) break;
      if (e - s > max) {
        // Too long to pass on whole: through the carry, which keeps the latest states of a `\r` run.
        this.lineStart = base + s;
        this.append(buf, s, e);
        this.lineNo++;
        this.flushCarry();
      } else {
        this.lineNo++;
        this.sink(buf, s, e, this.lineNo, base + s, false);
      }
      s = e + 1;
    }
    if (s < buf.length) {
      this.pending = true;
      this.lineStart = base + s;
      this.append(buf, s, buf.length);
    }
  }

  /** Room for the next chunk, of `len` bytes, where the bulk reader finds it without a copy; null without one. */
  inputBuffer(len: number): Buffer | null {
    return this.bulk?.inputBuffer?.(len) ?? null;
  }

  /** Continues counting from a line boundary elsewhere in the file (after a part was read by someone else). */
  seek(lineNo: number, offset: number): void {
    if (this.pending) throw new Error('LineSplitter.seek inside a line');
    this.lineNo = lineNo;
    this.consumed = offset;
  }

  /**
   * Flushes a last line that has no terminating newline. NUL bytes alone are no line: a UTF-16LE log ends
   * its last line with `\n\0`, and the `\0` read as a line of its own gave the file one line more than it has.
   */
  end(): void {
    if (!this.pending) return;
    this.pending = false;
    if (!this.carryTruncated && this.carry.subarray(0, this.carryLen).every((b) => b === 0)) {
      this.carryLen = 0;
      return;
    }
    this.lineNo++;
    this.flushCarry();
  }

  /** Passes the carry on as (the rest of) line `lineNo` and empties it. */
  private flushCarry(): void {
    this.sink(this.carry, 0, this.carryLen, this.lineNo, this.lineStart, this.carryTruncated);
    this.carryLen = 0;
    this.carryTruncated = false;
  }

  /**
   * Adds bytes of the current line to the carry. A line longer than `maxLine` is most often a `\r` run (a
   * progress bar refreshed in place for a whole load, never ending its line): its states are passed on in
   * pieces cut at a `\r`, as the same line, so the latest state is kept however long the run. Bytes with no
   * `\r` to cut at are dropped past `maxLine`, up to the next `\r`.
   */
  private append(buf: Buffer, s: number, e: number): void {
    while (s < e) {
      const room = this.maxLine - this.carryLen;
      if (e - s <= room) {
        this.copyIn(buf, s, e);
        return;
      }
      if (this.flushToLastCR()) continue;
      const cr = room > 0 ? buf.lastIndexOf(13, s + room - 1) : -1;
      if (cr >= s) {
        this.copyIn(buf, s, cr + 1);
        this.flushToLastCR();
        s = cr + 1;
        continue;
      }
      if (room > 0) this.copyIn(buf, s, s + room);
      this.carryTruncated = true;
      const next = buf.indexOf(13, s + room);
      if (next < 0 || next >= e) return;
      this.sink(this.carry, 0, this.carryLen, this.lineNo + 1, this.lineStart, true);
      this.carryLen = 0;
      this.carryTruncated = false;
      s = next;
    }
  }

  /** Passes on the carry up to its last `\r` as a piece of the line being read; false when it has none. */
  private flushToLastCR(): boolean {
    if (this.carryLen === 0) return false;
    const cr = this.carry.lastIndexOf(13, this.carryLen - 1);
    // At 0 the carry is one state already: nothing before it to pass on.
    if (cr <= 0) return false;
    this.sink(this.carry, 0, cr, this.lineNo + 1, this.lineStart, this.carryTruncated);
    this.carry.copy(this.carry, 0, cr, this.carryLen);
    this.carryLen -= cr;
    this.carryTruncated = false;
    return true;
  }

  private copyIn(buf: Buffer, s: number, e: number): void {
    const n = e - s;
    if (n <= 0) return;
    if (this.carryLen + n > this.carry.length) {
      const next = Buffer.allocUnsafe(
        Math.min(this.maxLine, Math.max(this.carry.length * 2, this.carryLen + n)),
      );
      this.carry.copy(next, 0, 0, this.carryLen);
      this.carry = next;
    }
    buf.copy(this.carry, this.carryLen, s, s + n);
    this.carryLen += n;
  }
}
