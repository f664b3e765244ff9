/**
 * `firedup demo`: replays a bundled GLM-5 launch (load, warm-up, serving, shutdown) into a temporary log at
 * high speed, with its HTTP endpoints answering in step, and watches it: the live view in seconds, no GPU.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { replayCommand } from './replay.js';
import { watchCommand } from './watch.js';

const EXAMPLE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'examples',
  'glm5-launch-to-shutdown.log',
);

const FLAGS: Record<string, FlagSpec> = {
  speed: { type: 'string' },
  json: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', alias: 'h' },
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export async function demoCommand(argv: string[]): Promise<number> {
  const { flags } = parseArgs(argv, FLAGS, 'demo');
  if (flags.help) {
    process.stdout.write('firedup demo [--speed 25] [--json]: watch a bundled launch replayed live\n');
    return 0;
  }
  const speed = typeof flags.speed === 'string' ? flags.speed : '25';
  if (!(Number(speed) > 0)) throw new UsageError(`demo: --speed ${speed}: needs a number above 0`);
  if (!fs.existsSync(EXAMPLE))
    throw new UsageError(`demo: the bundled log is missing (${EXAMPLE}); reinstall firedup`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-demo-'));
  const log = path.join(dir, 'server.log');
  const port = await freePort();
  try {
    const replay = replayCommand([EXAMPLE, '--speed', speed, '--out', log, '--serve', String(port)]);
    // A replay is not a launch of the user's: it stays out of their ledger.
    const watchArgs = [log, '--url', `http://127.0.0.1:${port}`, '--timeout', '10m', '--no-ledger'];
    if (flags.json) watchArgs.push('--json');
    if (flags['no-color']) watchArgs.push('--no-color');
    const [code] = await Promise.all([watchCommand(watchArgs), replay]);
    // The bundled launch ends with a clean shutdown: that is the demo working.
    return code === 5 ? 0 : code;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
