/**
 * Standard output without `process.stdout` where a command writes its answer once (`status`): Node creates
 * that stream on first use, loading its stream modules (a millisecond or two of a `firedup status`, which
 * otherwise runs in a few times that). The text goes to fd 1 with a blocking write, which is what
 * process.stdout does for a file, a pipe or a terminal on Linux and macOS; a descriptor that is non-blocking
 * (EAGAIN) gets the rest through process.stdout, as does everything after it, so the order holds.
 */
import fs from 'node:fs';
import { UsageError } from './errors.js';

let viaStream = false;

/** Writes `text` to standard output; a reader that went away (EPIPE) ends the process quietly, as main's handler does. */
export function writeOut(text: string): void {
  if (viaStream) {
    process.stdout.write(text);
    return;
  }
  const bytes = Buffer.from(text);
  let at = 0;
  try {
    while (at < bytes.length) at += fs.writeSync(1, bytes, at, bytes.length - at);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') process.exit(0);
    if (code !== 'EAGAIN') throw outputError(err as NodeJS.ErrnoException);
    viaStream = true;
    process.stdout.write(bytes.subarray(at));
  }
}

/**
 * Calls `fn` with process.stdout when something first asks for it (at once if it exists already), so that a
 * handler on it costs nothing to a command that never creates it.
 */
export function onStdout(fn: (stream: NodeJS.WriteStream) => void): void {
  const own = Object.getOwnPropertyDescriptor(process, 'stdout');
  if (!own?.get || !own.configurable) {
    fn(process.stdout);
    return;
  }
  const get = own.get;
  Object.defineProperty(process, 'stdout', {
    configurable: true,
    enumerable: own.enumerable,
    get() {
      // Node's getter keeps the stream it made: put it back, then hand the stream over once.
      Object.defineProperty(process, 'stdout', own);
      const stream = get.call(process) as NodeJS.WriteStream;
      fn(stream);
      return stream;
    },
  });
}

/** A write to standard output that failed (a full disk behind `> file`, a closed descriptor): one line. */
export function outputError(err: NodeJS.ErrnoException): UsageError {
  const why = err.code
    ? `${err.code}: ${err.message.replace(/^\w+: /, '').replace(/, write$/, '')}`
    : err.message;
  return new UsageError(`cannot write to standard output (${why}); write it elsewhere or free space`);
}
