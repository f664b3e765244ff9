/**
 * `firedup replay <log> --speed N --out FILE [--serve PORT]`: writes a recorded log into FILE at its original
 * timing (sped up), and with --serve answers the engine's HTTP endpoints in step, so a watcher (firedup
 * watch/wait, a readiness script) can be tried on a real launch without GPUs.
 */
import fs from 'node:fs';
import { runReplay } from '../app/replay.js';
import { planReplay } from '../core/replay/replay.js';
import { describeFsError } from '../sources/file.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';

const HELP = `firedup replay — write a recorded log into a file at its original timing, for trying a watcher on it

Usage:
  firedup replay <log> --speed 20 --out FILE [--serve PORT] [--max-gap S]

Options:
  --speed N       play N times faster than the log was written (default 1)
  --out FILE      append the lines to FILE, like the server's >> (default: standard output)
  --serve PORT    also answer the engine's HTTP endpoints on 127.0.0.1:PORT in step: refused until the log
                  shows the HTTP server starting, /health 503 until it shows ready, 200 after
  --max-gap S     pauses longer than S seconds of log time are shortened to S (default 30)
`;

export const SPEC: Record<string, FlagSpec> = {
  speed: { type: 'string' },
  out: { type: 'string' },
  serve: { type: 'string' },
  'max-gap': { type: 'string' },
  help: { type: 'boolean', alias: 'h' },
};

function numberFlag(
  name: string,
  v: unknown,
  fallback: number,
  ok: (n: number) => boolean,
  want: string,
): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== 'string' || v.trim() === '' || !ok(n))
    throw new UsageError(`replay: --${name} ${v}: ${want}`);
  return n;
}

export async function replayCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, SPEC, 'replay');
  if (flags.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError(
      'replay: name one recorded log: firedup replay server.log --speed 20 --out live.log',
    );
  const src = positionals[0]!;
  if (src === '-')
    throw new UsageError('replay: needs a log file, not standard input (its timing is replayed)');
  const speed = numberFlag(
    'speed',
    flags.speed,
    1,
    (n) => n > 0 && Number.isFinite(n),
    'needs a number above 0',
  );
  const maxGap = numberFlag('max-gap', flags['max-gap'], 30, (n) => n >= 0, 'needs seconds, 0 or more');
  const port =
    flags.serve === undefined
      ? null
      : numberFlag(
          'serve',
          flags.serve,
          0,
          (n) => Number.isInteger(n) && n > 0 && n < 65536,
          'needs a port, 1-65535',
        );

  let data: Buffer;
  try {
    if (fs.statSync(src).isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    data = fs.readFileSync(src);
  } catch (err) {
    throw new UsageError(describeFsError(src, err));
  }
  // latin1 maps every byte to one character and back, so the copy is byte-exact even where the log is not
  // valid UTF-8; the timing reads only ASCII (stamps, bar fields), which latin1 leaves as it is.
  const steps = planReplay(data.toString('latin1'), { speed, maxGap });
  const out = typeof flags.out === 'string' ? flags.out : null;
  if (out !== null && sameFile(src, out))
    throw new UsageError(`replay: --out ${out} is the same file as the log replayed; name another file`);
  return runReplay(data, steps, { out, port });
}

/** Whether two paths name one file (through links too): appending a log to itself would never end. */
function sameFile(a: string, b: string): boolean {
  try {
    const x = fs.statSync(a);
    const y = fs.statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}
