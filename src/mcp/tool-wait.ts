/**
 * `wait`: blocks until the launch is ready (or serving, or loaded), crashed, stalled or dead, or the timeout
 * passes; each phase, progress step and verdict on the way is sent as an MCP progress notification when the
 * caller asked for them (a progressToken), so an agent sees the shards go by instead of a silent call.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { runCli } from './cli-run.js';
import { ledgerArgs, type McpContext } from './context.js';
import { checkTarget, failureMessage, toolResult } from './result.js';
import { cut, statusSummary } from './summary.js';
import { target } from './tools-read.js';

/** wait's exit codes that are verdicts: ready 0, crashed 2, stalled 4, exited or dead 5, timeout 6. */
const VERDICT_CODES = new Set([0, 2, 4, 5, 6]);
const MAX_WAIT_S = 6 * 3600;

type Event = Record<string, unknown>;

/** One event of `wait --json` as a progress message. */
export function eventMessage(e: Event): string | null {
  switch (e.type) {
    case 'launch':
      return `launch ${e.launch} started (line ${e.line})`;
    case 'phase':
      return `phase ${e.phase} (line ${e.line}): ${cut(String(e.text ?? ''), 160)}`;
    case 'progress':
      return e.total
        ? `${e.phase}: ${e.done}/${e.total}${typeof e.eta === 'number' ? `, about ${e.eta} s left` : ''}`
        : null;
    case 'verdict':
      return `${e.state}: ${cut(String(e.why ?? ''), 200)}`;
    case 'source':
      return typeof e.detail === 'string' ? cut(e.detail, 200) : null;
    case 'reading':
      return typeof e.text === 'string' ? cut(e.text, 200) : null;
    default:
      return null;
  }
}

export function registerWaitTool(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'wait',
    {
      title: 'Wait for a launch',
      description:
        "Judges the latest launch of a log at once, then blocks until it is ready (or serving, or loaded), crashed, stalled or dead, or timeout_s passes; phases and shard progress arrive as progress notifications. Only a 'ready'/'serving' verdict means the server can take load: a stalled or dead one needs the evidence read first.",
      inputSchema: {
        target,
        for: z
          .enum(['ready', 'serving', 'loaded'])
          .default('ready')
          .describe('ready (default), serving (a request served) or loaded (weights in memory)'),
        timeout_s: z
          .number()
          .int()
          .min(1)
          .max(MAX_WAIT_S)
          .describe(`give up after this many seconds (at most ${MAX_WAIT_S})`),
        next: z
          .boolean()
          .default(false)
          .describe('skip launches already over when the wait starts: wait for the relaunch'),
        url: z.string().url().max(2048).optional(),
        pid: z
          .number()
          .int()
          .min(1)
          .max(2 ** 31)
          .optional(),
        gpu: z.boolean().default(true).describe('probe the GPUs with nvidia-smi'),
      },
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async (a, extra) => {
      const args = ['wait', '--json', ...ledgerArgs(ctx), '--for', a.for, '--timeout', `${a.timeout_s}s`];
      if (a.next) args.push('--next');
      if (a.url) args.push('--url', a.url);
      if (a.pid) args.push('--pid', String(a.pid));
      if (!a.gpu) args.push('--no-gpu');
      args.push(checkTarget(a.target));
      const token = extra._meta?.progressToken;
      let step = 0;
      let exit: Event | null = null;
      const notify = (message: string) => {
        if (token === undefined) return;
        step += 1;
        extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: step, message },
          })
          .catch(() => {});
      };
      const run = await runCli(args, {
        // wait stops itself at its --timeout (exit 6); the margin covers a slow last read.
        timeoutS: a.timeout_s + 30,
        signal: extra.signal,
        onLine: (line) => {
          let e: Event;
          try {
            e = JSON.parse(line) as Event;
          } catch {
            return;
          }
          if (e.type === 'exit') exit = e;
          const msg = eventMessage(e);
          if (msg) notify(msg);
        },
      });
      const final = exit as Event | null;
      if (final === null || run.code === null || !VERDICT_CODES.has(run.code))
        throw new Error(failureMessage('wait', run, a.timeout_s + 30));
      const data: Event = { ...final, exitCode: run.code };
      const head =
        run.code === 6 ? `timeout: still ${String(final.state ?? 'starting')} after ${a.timeout_s} s\n` : '';
      return toolResult(head + statusSummary({ ...final, live: final }), data);
    },
  );
}
