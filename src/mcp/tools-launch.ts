/**
 * `launch` and `sweep`: offered only when the user started the server with --allow-launch. Starting processes
 * on a GPU machine is the user's decision, not the agent's.
 *
 * A launched server outlives the tool call (and this MCP server): `firedup launch` runs detached, its events
 * going to a file beside the log, and the call returns at the first verdict that decides something — ready,
 * crashed, stalled, dead — or at timeout_s with the launch still starting. From then on `status` and `wait`
 * on the log follow it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { childEnv, FIREDUP_BIN, runCli } from './cli-run.js';
import { ledgerArgs, type McpContext } from './context.js';
import { checkTarget, failureMessage, toolResult } from './result.js';
import { statusSummary } from './summary.js';
import { eventMessage } from './tool-wait.js';

type Event = Record<string, unknown>;
const DECIDED = new Set(['ready', 'serving', 'idle', 'crashed', 'stalled', 'dead', 'exited']);
const ENGINES = ['sglang', 'vllm', 'trtllm', 'tgi', 'llamacpp'] as const;

/** Complete JSON lines appended to `file` since `offset`. */
function readEvents(file: string, offset: number): { events: Event[]; offset: number } {
  let buf: Buffer;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      buf = Buffer.alloc(Math.max(0, size - offset));
      fs.readSync(fd, buf, 0, buf.length, offset);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return { events: [], offset };
  }
  const end = buf.lastIndexOf(0x0a);
  if (end < 0) return { events: [], offset };
  const events: Event[] = [];
  for (const line of buf.subarray(0, end).toString('utf8').split('\n')) {
    try {
      events.push(JSON.parse(line) as Event);
    } catch {}
  }
  return { events, offset: offset + end + 1 };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function registerLaunchTools(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'launch',
    {
      title: 'Launch a server',
      description:
        'Starts a server under `firedup launch`: its output appended to a log, watched live, the flags it logs checked against the ones given. Returns at the first deciding verdict (ready, crashed, stalled, dead) or after timeout_s with the launch still starting; the server keeps running either way — follow it with `status`/`wait` on the log, stop it with `kill -INT <pid>`.',
      inputSchema: {
        command: z
          .array(z.string().min(1).max(4096))
          .min(1)
          .max(256)
          .describe(
            'the server command and its arguments, e.g. ["vllm", "serve", "Qwen/Qwen3-8B", "--port", "8000"]',
          ),
        log: z
          .string()
          .min(1)
          .max(4096)
          .optional()
          .describe('where its output goes (default ./firedup-<engine>-<time>.log)'),
        url: z.string().url().max(2048).optional(),
        engine: z.enum(ENGINES).optional(),
        gpu: z.boolean().default(true),
        timeout_s: z
          .number()
          .int()
          .min(1)
          .max(6 * 3600)
          .describe('return after this many seconds if nothing is decided'),
      },
      annotations: { destructiveHint: false, openWorldHint: true },
    },
    async (a, extra) => {
      const args = ['launch', '--json', ...ledgerArgs(ctx)];
      if (a.log) args.push('--log', checkTarget(a.log, 'log'));
      if (a.url) args.push('--url', a.url);
      if (a.engine) args.push('--engine', a.engine);
      if (!a.gpu) args.push('--no-gpu');
      args.push('--', ...a.command);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-mcp-launch-'));
      const eventsFile = path.join(dir, 'events.jsonl');
      const errFile = path.join(dir, 'stderr.txt');
      const out = fs.openSync(eventsFile, 'a');
      const err = fs.openSync(errFile, 'a');
      const child = spawn(process.execPath, [FIREDUP_BIN, ...args], {
        env: childEnv(),
        stdio: ['ignore', out, err],
        detached: true,
      });
      fs.closeSync(out);
      fs.closeSync(err);
      child.unref();
      let exited: number | null = null;
      child.on('exit', (code) => {
        exited = code ?? 128;
      });
      const token = extra._meta?.progressToken;
      let step = 0;
      let offset = 0;
      let started: Event | null = null;
      let last: Event | null = null;
      const deadline = Date.now() + a.timeout_s * 1000;
      for (;;) {
        const r = readEvents(eventsFile, offset);
        offset = r.offset;
        for (const e of r.events) {
          if (e.type === 'started') started = e;
          if (e.type === 'verdict') last = e;
          if (e.type === 'exit') last = (e.verdict as Event) ?? last;
          const msg = eventMessage(e);
          if (msg && token !== undefined)
            extra
              .sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: ++step, message: msg },
              })
              .catch(() => {});
        }
        const decided = last !== null && DECIDED.has(String(last.state));
        if (decided || exited !== null || Date.now() >= deadline || extra.signal.aborted) break;
        await sleep(250);
      }
      if (started === null) {
        const said = fs
          .readFileSync(errFile, 'utf8')
          .trim()
          .split('\n')
          .at(-1)
          ?.replace(/^firedup: /, '');
        throw new Error(said || `launch: firedup launch exited ${exited ?? '?'} before starting the server`);
      }
      const running = exited === null;
      const data: Event = {
        pid: started.pid ?? null,
        launcherPid: child.pid ?? null,
        log: started.log ?? null,
        events: eventsFile,
        running,
        verdict: last,
      };
      const head = `${running ? `running (firedup launch pid ${child.pid}, server pid ${String(started.pid)})` : `firedup launch exited ${exited}`}; log ${String(started.log)}`;
      return toolResult(`${head}\n${last ? statusSummary({ ...last, live: last }) : 'no verdict yet'}`, data);
    },
  );

  server.registerTool(
    'sweep',
    {
      title: 'Run a sweep',
      description:
        "Runs a tuning campaign from a sweep TOML file (every point of a grid of flags launched, checked, benchmarked, ranked), or with dry_run prints its plan. Each point's progress arrives as a progress notification. Stopped at timeout_s as a Ctrl-C stops it (the current server stopped; `resume` continues later).",
      inputSchema: {
        file: z.string().min(1).max(4096),
        dry_run: z.boolean().default(false),
        resume: z.boolean().default(false),
        gpu: z.boolean().default(true),
        timeout_s: z
          .number()
          .int()
          .min(1)
          .max(48 * 3600),
      },
      annotations: { destructiveHint: false, openWorldHint: true },
    },
    async (a, extra) => {
      const args = ['sweep', '--json', ...ledgerArgs(ctx)];
      if (a.dry_run) args.push('--dry-run');
      if (a.resume) args.push('--resume');
      if (!a.gpu) args.push('--no-gpu');
      args.push(checkTarget(a.file, 'file'));
      const token = extra._meta?.progressToken;
      let step = 0;
      const run = await runCli(args, {
        timeoutS: a.timeout_s,
        signal: extra.signal,
        stopSignal: 'SIGINT',
        onLine: (line) => {
          if (token === undefined) return;
          let e: Event;
          try {
            e = JSON.parse(line) as Event;
          } catch {
            return;
          }
          const msg =
            typeof e.type === 'string'
              ? `${e.type}${e.point !== undefined ? ` point ${String(e.point)}` : ''}${e.state ? `: ${String(e.state)}` : ''}`
              : null;
          if (msg)
            extra
              .sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: ++step, message: msg },
              })
              .catch(() => {});
        },
      });
      // sweep: 0 a best point, 3 none met the targets, 130 stopped (timeout or cancel)
      if (run.code === null || ![0, 3, 130].includes(run.code) || (run.code === 130 && !run.timedOut))
        throw new Error(failureMessage('sweep', run, a.timeout_s));
      const lines = run.stdout.trim().split('\n').filter(Boolean);
      let final: Event = {};
      for (let i = lines.length - 1; i >= 0; i--) {
        try {
          final = JSON.parse(lines[i]!) as Event;
          break;
        } catch {}
      }
      const data: Event = { exitCode: run.code, stopped: run.timedOut, result: final };
      const head = run.timedOut
        ? `stopped after ${a.timeout_s} s (resume to continue)`
        : run.code === 0
          ? (final.report as { best?: unknown } | undefined)?.best === null
            ? 'sweep done: no winner, the leading points are within noise of each other'
            : 'sweep done: a best point'
          : 'sweep done: no point met the targets';
      return toolResult(head, data);
    },
  );
}
