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
      this.sink(this.carry, 0, this.carryLen, this.lineNo, this.lineStart, this.carryTruncated);
      this.carryLen = 0;
      this.carryTruncated = false;
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
        }
      }
      const e = buf.indexOf(10, s);
      if (e < 0) break;
      this.lineNo++;
      if (e - s > max) this.sink(buf, s, s + max, this.lineNo, base + s, true);
      else this.sink(buf, s, e, this.lineNo, base + s, false);
      s = e + 1;
    }
    if (s < buf.length) {
      this.pending = true;
      this.lineStart = base + s;
      this.append(buf, s, buf.length);
    }
  }

  /** Continues counting from a line boundary elsewhere in the file (after a part was read by someone else). */
  seek(lineNo: number, offset: number): void {
    if (this.pending) throw new Error('LineSplitter.seek inside a line');
    this.lineNo = lineNo;
    this.consumed = offset;
  }

  /** Flushes a last line that has no terminating newline. */
  end(): void {
    if (!this.pending) return;
    this.pending = false;
    this.lineNo++;
    this.sink(this.carry, 0, this.carryLen, this.lineNo, this.lineStart, this.carryTruncated);
    this.carryLen = 0;
    this.carryTruncated = false;
  }

  private append(buf: Buffer, s: number, e: number): void {
    const room = this.maxLine - this.carryLen;
    let n = e - s;
    if (n > room) {
      n = room;
      this.carryTruncated = true;
    }
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
