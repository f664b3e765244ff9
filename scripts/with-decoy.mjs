#!/usr/bin/env node
/**
 * Runs a command (the test suite) while an unrelated SGLang-looking server runs on this machine, as on any
 * shared GPU node: `node scripts/with-decoy.mjs node --test dist/test/`. No live command may take it for the
 * server of a launch under test (issue 24: process identity by evidence only).
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const port = await new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const decoy = spawn(
  process.execPath,
  [
    path.join(root, 'test', 'fixtures', 'scripted-sglang.mjs'),
    'python3',
    '-m',
    'sglang.launch_server',
    '--model-path',
    'other-team/Decoy-70B',
    '--port',
    String(port),
    '--serve-now',
  ],
  { stdio: 'ignore' },
);
process.stderr.write(
  `with-decoy: an unrelated SGLang-looking server runs as pid ${decoy.pid} on port ${port}\n`,
);
const [cmd, ...args] = process.argv.slice(2);
const run = spawn(cmd, args, { stdio: 'inherit' });
const stop = () => decoy.kill('SIGKILL');
run.on('exit', (code, signal) => {
  stop();
  process.exit(code ?? (signal ? 1 : 0));
});
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => run.kill(s));
