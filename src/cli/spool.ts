/**
 * Text kept for writing later, in order, in bounded memory: the launches `runs --json` learns as they close,
 * which must follow the report's head (its engine and line count, known only at the end). The text is encoded
 * into one buffer as it comes, and each time the buffer fills it goes to a file in the temporary directory,
 * unlinked once open, so nothing is left behind (no large strings are built: a 100k-launch log spools 230 MB).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export class TextSpool {
  private buf: Buffer;
  private used = 0;
  private fd: number | null = null;
  /** Pieces added (what decides the comma before the next one). */
  count = 0;

  constructor(bufferBytes = 4 << 20) {
    this.buf = Buffer.allocUnsafe(bufferBytes);
  }

  add(text: string): void {
    this.count++;
    // a UTF-16 unit is at most 3 bytes of UTF-8
    if (this.used + text.length * 3 > this.buf.length) {
      this.spill();
      if (text.length * 3 > this.buf.length) {
        fs.writeSync(this.file(), text);
        return;
      }
    }
    this.used += this.buf.write(text, this.used);
  }

  private file(): number {
    if (this.fd === null) {
      const dir = fs.mkdtempSync(path.join(tmpdir(), 'firedup-spool-'));
      const file = path.join(dir, 'spool');
      this.fd = fs.openSync(file, 'w+', 0o600);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return this.fd;
  }

  private spill(): void {
    if (this.used === 0) return;
    const fd = this.file();
    for (let at = 0; at < this.used; ) at += fs.writeSync(fd, this.buf, at, this.used - at);
    this.used = 0;
  }

  /** Hands everything added, in order, to `write` (in pieces of a few megabytes), and forgets it. */
  async drain(write: (piece: Buffer) => Promise<void>): Promise<void> {
    if (this.fd !== null) {
      this.spill();
      for (let pos = 0; ; ) {
        // a new buffer each time: `write` may still hold the last one
        const piece = Buffer.allocUnsafe(this.buf.length);
        const n = fs.readSync(this.fd, piece, 0, piece.length, pos);
        if (n === 0) break;
        pos += n;
        await write(piece.subarray(0, n));
      }
      fs.closeSync(this.fd);
      this.fd = null;
    } else if (this.used > 0) await write(Buffer.from(this.buf.subarray(0, this.used)));
    this.used = 0;
  }
}

/** node:os's tmpdir, loaded only by a spool that spills (node:os costs every `firedup status` a millisecond). */
function tmpdir(): string {
  return (createRequire(import.meta.url)('node:os') as typeof import('node:os')).tmpdir();
}
