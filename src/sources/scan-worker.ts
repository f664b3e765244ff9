/** Worker thread: reads a byte range of a log with a RangeScanner and sends the segments back. */
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { RangeScanner } from '../core/reading/range-scan.js';
import type { ShapePlan } from '../core/reading/scan.js';

interface Job {
  path: string;
  start: number;
  end: number;
  maxLine: number;
  /** Another engine's serving lines, read with the first reader's shapes (else SGLang's). */
  plan?: ShapePlan;
}

function run(job: Job): void {
  const scanner = new RangeScanner(job.start, 8 << 20, job.maxLine, job.plan);
  const CHUNK = 8 << 20;
  const buf = Buffer.allocUnsafe(CHUNK);
  const fd = fs.openSync(job.path, 'r');
  try {
    let pos = job.start;
    while (pos < job.end) {
      const n = fs.readSync(fd, buf, 0, Math.min(CHUNK, job.end - pos), pos);
      if (n === 0) break;
      scanner.push(buf.subarray(0, n));
      pos += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  parentPort!.postMessage(scanner.end());
}

// The job comes with the worker, or after it (started early: ScanWorker.scan), in its one message.
const given = workerData as Job | null;
if (given) run(given);
else parentPort!.once('message', run);
