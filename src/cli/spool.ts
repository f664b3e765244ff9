/**
 * Text kept for writing later, in order, in bounded memory: the launches `runs --json` learns as they close,
 * which must follow the report's head (its engine and line count, known only at the end). Past `maxMemory`
 * characters it goes to a file in the temporary directory, unlinked once open, so nothing is left behind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export class TextSpool {
  private parts: string[] = [];
  private held = 0;
  private fd: number | null = null;
  /** Pieces added (what decides the comma before the next one). */
  count = 0;

  constructor(private readonly maxMemory = 16 << 20) {}

  add(text: string): void {
    this.parts.push(text);
    this.held += text.length;
    this.count++;
    if (this.held >= this.maxMemory) this.spill();
  }

  private spill(): void {
    if (this.fd === null) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-spool-'));
      const file = path.join(dir, 'spool');
      this.fd = fs.openSync(file, 'w+', 0o600);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    fs.writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.held = 0;
  }

  /** Hands everything added, in order, to `write` (in pieces of a few megabytes), and forgets it. */
  async drain(write: (piece: string | Buffer) => Promise<void>): Promise<void> {
    if (this.fd !== null) {
      for (let pos = 0; ; ) {
        // a new buffer each time: `write` may still hold the last one
        const buf = Buffer.allocUnsafe(4 << 20);
        const n = fs.readSync(this.fd, buf, 0, buf.length, pos);
        if (n === 0) break;
        pos += n;
        await write(buf.subarray(0, n));
      }
      fs.closeSync(this.fd);
      this.fd = null;
    }
    if (this.parts.length) await write(this.parts.join(''));
    this.parts = [];
    this.held = 0;
  }
}
