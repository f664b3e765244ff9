/**
 * `firedup demo`: replays a bundled GLM-5 launch (load, warm-up, serving, shutdown) into a temporary log,
 * with its HTTP endpoints answering in step, and watches it: the live view in half a minute, no GPU. The
 * timing (core/replay/demo-plan.ts) lingers on the start-up phases and hurries through serving.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runReplay } from '../app/replay.js';
import { planDemo } from '../core/replay/demo-plan.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { fmtDuration } from './format.js';
import { colorWanted, makeStyle, type Style } from './style.js';
import { watchCommand } from './watch.js';

const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples');
const EXAMPLE = path.join(EXAMPLES, 'glm5-launch-to-shutdown.log');
const DEFAULT_SPEED = 10;

export const FLAGS: Record<string, FlagSpec> = {
  speed: { type: 'string' },
  json: { type: 'boolean' },
  'no-color': { type: 'boolean' },
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

/** An example's path as the user can type it: relative from inside the checkout, else absolute. */
function examplePath(name: string): string {
  const abs = path.join(EXAMPLES, name);
  const rel = path.relative(process.cwd(), abs);
  return rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
}

/** Resolves once `file` holds a byte, or the replay has ended (it failed: its error is reported there). */
async function firstByte(file: string, replay: Promise<number>): Promise<void> {
  let over = false;
  const done = () => {
    over = true;
  };
  // then(), not finally(): a failed replay must not leave a second, unhandled rejection behind.
  replay.then(done, done);
  while (!over && fs.statSync(file).size === 0) await new Promise((r) => setTimeout(r, 10));
}

function banner(st: Style, speed: number, seconds: number, logSeconds: number, port: number): string {
  return [
    st.bold('firedup demo'),
    `  replaying ${examplePath('glm5-launch-to-shutdown.log')}: SGLang serving GLM-5 (NVFP4) on 8 GPUs,`,
    `  from launch through loading, warm-up and serving to a clean shutdown`,
    `  ${fmtDuration(logSeconds)} of log in about ${fmtDuration(Math.ceil(seconds))}: start-up at ${speed}× with a pause at`,
    `  each phase, serving at ${speed * 4}×; its HTTP endpoints answer in step on 127.0.0.1:${port}`,
    st.dim('  Ctrl-C stops it'),
    '',
  ].join('\n');
}

function nowTry(st: Style): string {
  const rows: Array<[string, string]> = [
    [
      `firedup status ${examplePath('glm5-relaunch-stuck-at-48pct.log')}`,
      'a relaunch stuck loading, and what changed',
    ],
    [`firedup status ${examplePath('vllm-llama3-8b-serving.log')}`, 'vLLM, launch to serving'],
    [`firedup status ${examplePath('llamacpp-qwen2.5-3b-serving.log')}`, 'llama-server, launch to serving'],
    [`firedup runs ${examplePath('glm5-serving.log')}`, 'every launch in a file'],
    ['firedup runs', 'every launch read so far (the ledger)'],
    ['firedup watch /path/to/your/server.log', 'your own launch, live'],
  ];
  const w = Math.max(...rows.map(([c]) => c.length));
  return `\n${st.bold('now try:')}\n${rows.map(([c, what]) => `  ${c.padEnd(w)}  ${st.dim(what)}`).join('\n')}\n`;
}

export async function demoCommand(argv: string[]): Promise<number> {
  const { flags } = parseArgs(argv, FLAGS, 'demo');
  const speed = typeof flags.speed === 'string' ? Number(flags.speed) : DEFAULT_SPEED;
  if (!(speed > 0) || !Number.isFinite(speed))
    throw new UsageError(`demo: --speed ${String(flags.speed)}: needs a number above 0`);
  if (!fs.existsSync(EXAMPLE))
    throw new UsageError(`demo: the bundled log is missing (${EXAMPLE}); reinstall firedup`);
  const data = fs.readFileSync(EXAMPLE);
  const plan = planDemo(data.toString('latin1'), speed);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-demo-'));
  const log = path.join(dir, 'server.log');
  // The log exists, empty, before the watch starts: the server is about to write it, not missing.
  fs.writeFileSync(log, '');
  const port = await freePort();
  const json = Boolean(flags.json);
  const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
  // JSON output stays JSON: the banner and the closing lines are for a person.
  if (!json) process.stdout.write(banner(st, speed, plan.seconds, plan.logSeconds, port));
  try {
    const replay = runReplay(data, plan.steps, { out: log, port });
    // The watch starts on the first line, as it would on a server already writing: no "waiting" first.
    await firstByte(log, replay);
    // A replay is not a launch of the user's: it stays out of their ledger.
    const watchArgs = [log, '--url', `http://127.0.0.1:${port}`, '--timeout', '10m', '--no-ledger'];
    if (json) watchArgs.push('--json');
    if (flags['no-color']) watchArgs.push('--no-color');
    const [code, replayCode] = await Promise.all([watchCommand(watchArgs), replay]);
    // Stopped with Ctrl-C: no invitation, the exit status says so.
    if (replayCode !== 0 || code === 130) return code === 130 ? 130 : replayCode;
    if (!json) process.stdout.write(nowTry(st));
    // The bundled launch ends with a clean shutdown: that is the demo working.
    return code === 5 ? 0 : code;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
