/** The read tools: status, explain, runs, show, diff — each the CLI command of the same name, with --json. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ledgerArgs, type McpContext } from './context.js';
import { checkTarget, cliJson, toolResult } from './result.js';
import { launchesSummary, statusSummary } from './summary.js';

/** status exits 0 ready/serving, 2 crashed, 3 starting, 4 stalled, 5 shut down or dead: all are answers. */
const STATUS_CODES = [0, 2, 3, 4, 5] as const;
const ENGINES = ['sglang', 'vllm', 'trtllm', 'tgi', 'llamacpp'] as const;
const STATES = [
  'in_progress',
  'ready',
  'serving',
  'crashed',
  'shutdown',
  'ended',
  'stalled',
  'dead',
  'exited',
] as const;

export const target = z
  .string()
  .min(1)
  .max(4096)
  .describe('the server log: a local path, or [user@]host:path read through the system ssh');
export const timeoutS = (def: number, max: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(max)
    .default(def)
    .describe(`seconds before the command is stopped (default ${def}, at most ${max})`);
const launchRef = z
  .string()
  .min(1)
  .max(200)
  .regex(/^(?:last(?:~\d{1,6})?|[0-9a-f]{4,64})$/i, 'an id (4+ hex characters), last, or last~N')
  .describe('a recorded launch: its id or a unique prefix of 4+ hex characters, last, or last~N');

const objectOf = (json: Record<string, unknown> | unknown[]): Record<string, unknown> =>
  Array.isArray(json) ? { items: json } : json;

/** The live verdict of a status report (exit code aside), as an MCP client sees it in structured content. */
const statusOutput = z
  .looseObject({
    engine: z.string().nullable().optional(),
    outcome: z.string().nullable().optional(),
    phase: z.string().nullable().optional(),
    live: z.looseObject({ state: z.string() }).nullable().optional(),
    exitCode: z.number().int(),
  })
  .describe('the `status --json` report (README, "JSON contract") and the exit code status would give');

export function registerReadTools(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'status',
    {
      title: 'Launch status',
      description:
        "The latest launch in a server log, judged now: which launch and phase, how far along, whether it is ready, serving, stalled, crashed or dead and why, with the log lines that prove it and the next step. For a local log the server's process and port are probed too (url/pid name them). Read this before acting on a server: never grep the log, which matches lines of earlier launches.",
      inputSchema: {
        target,
        url: z
          .string()
          .url()
          .max(2048)
          .optional()
          .describe("the server's HTTP address, probed as well (a refused port is not ready)"),
        pid: z
          .number()
          .int()
          .min(1)
          .max(2 ** 31)
          .optional()
          .describe("the server's process id, checked as well (gone means dead)"),
        engine: z.enum(ENGINES).optional().describe('read the log as this engine instead of detecting it'),
        timeout_s: timeoutS(120, 3600),
      },
      outputSchema: statusOutput,
      annotations: { readOnlyHint: false, openWorldHint: true, idempotentHint: true },
    },
    async (a, extra) => {
      const args = ['status', '--json', ...ledgerArgs(ctx), checkTarget(a.target)];
      if (a.url) args.push('--url', a.url);
      if (a.pid) args.push('--pid', String(a.pid));
      if (a.engine) args.push('--engine', a.engine);
      const { run, json } = await cliJson(args, STATUS_CODES, a.timeout_s, extra.signal);
      const data = { ...objectOf(json), exitCode: run.code! };
      return toolResult(statusSummary(data), data);
    },
  );

  server.registerTool(
    'explain',
    {
      title: 'Why firedup reads a launch so',
      description:
        "The lines behind each conclusion about the latest launch of a log (engine votes, the launch's start, each phase mark with its line and rule, progress, ready, serving, the failure and its evidence) and the engine-looking lines no rule recognised, grouped by shape: what to check when a reading looks wrong.",
      inputSchema: { target, engine: z.enum(ENGINES).optional(), timeout_s: timeoutS(120, 3600) },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (a, extra) => {
      const args = ['status', '--explain', '--json', ...ledgerArgs(ctx), checkTarget(a.target)];
      if (a.engine) args.push('--engine', a.engine);
      const { json } = await cliJson(args, STATUS_CODES, a.timeout_s, extra.signal);
      const data = objectOf(json);
      const unknown = Array.isArray(data.unrecognised) ? data.unrecognised.length : null;
      const summary = [
        `explanation of the latest launch in ${a.target}`,
        unknown !== null ? `${unknown} shapes of engine lines no rule knew` : null,
      ]
        .filter(Boolean)
        .join('\n');
      return toolResult(summary, data);
    },
  );

  server.registerTool(
    'runs',
    {
      title: 'Launches',
      description:
        'Every launch in a log (with target), or the launches the ledger has recorded, newest first, filtered by model, host, age, outcome and logged config (where: ["tp_size=8", "moe_runner_backend=flashinfer_trtllm"]): did a configuration really run?',
      inputSchema: {
        target: target.optional(),
        model: z.string().max(200).optional(),
        host: z.string().max(255).optional(),
        since: z.string().max(40).optional().describe('a date, a date-time, or an age: 30m, 2h, 3d, 1w'),
        outcome: z.enum(STATES).optional(),
        where: z
          .array(
            z
              .string()
              .max(300)
              .regex(/^[^=]+=.*$/, 'KEY=VALUE'),
          )
          .max(20)
          .optional(),
        limit: z.number().int().min(1).max(500).default(50),
        timeout_s: timeoutS(120, 3600),
      },
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async (a, extra) => {
      const args = ['runs', '--json', ...ledgerArgs(ctx)];
      const filtered = a.model || a.host || a.since || a.outcome || a.where?.length;
      if (a.target !== undefined) {
        if (filtered)
          throw new Error(
            'runs: a log lists its own launches; leave out model, host, since, outcome and where, or the target',
          );
        args.push(checkTarget(a.target));
      } else {
        if (a.model) args.push('--model', a.model);
        if (a.host) args.push('--host', a.host);
        if (a.since) args.push('--since', a.since);
        if (a.outcome) args.push('--outcome', a.outcome);
        for (const w of a.where ?? []) args.push('--where', w);
        args.push('--limit', String(a.limit));
      }
      const { json } = await cliJson(args, [0], a.timeout_s, extra.signal);
      const data = objectOf(json);
      const launches = Array.isArray(data.launches) ? data.launches : [];
      const shown = a.target !== undefined ? launches.slice(-a.limit) : launches;
      const out =
        a.target !== undefined && shown.length < launches.length
          ? { ...data, launches: shown, omitted: launches.length - shown.length }
          : data;
      return toolResult(launchesSummary(shown, launches.length), out);
    },
  );

  server.registerTool(
    'show',
    {
      title: 'One recorded launch',
      description:
        'One recorded launch in full: phases and their times, the failure with its evidence, the benches attached to it and the targets they meet.',
      inputSchema: { id: launchRef },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (a, extra) => {
      const { json } = await cliJson(['show', a.id, '--json', ...ledgerArgs(ctx)], [0], 60, extra.signal);
      const data = objectOf(json);
      const report = (data.report ?? {}) as Record<string, unknown>;
      return toolResult(statusSummary({ ...report, ...data, live: data.live ?? null }), data);
    },
  );

  server.registerTool(
    'diff',
    {
      title: 'Two launches compared',
      description:
        'Two launches side by side, only what differs: config, phase times, throughput, benches. Give a and b (ids, last, last~N, or logs: their latest launches), or log alone (its last two launches).',
      inputSchema: {
        a: z.string().min(1).max(4096).optional(),
        b: z.string().min(1).max(4096).optional(),
        log: target.optional(),
        timeout_s: timeoutS(120, 3600),
      },
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async (a, extra) => {
      let refs: string[];
      if (a.log !== undefined) {
        if (a.a !== undefined || a.b !== undefined) throw new Error('diff: give log alone, or a and b');
        refs = [checkTarget(a.log, 'log')];
      } else if (a.a !== undefined && a.b !== undefined)
        refs = [checkTarget(a.a, 'a'), checkTarget(a.b, 'b')];
      else throw new Error('diff: give a and b (launch ids or logs), or log (its last two launches)');
      const { json } = await cliJson(
        ['diff', '--json', ...ledgerArgs(ctx), ...refs],
        [0],
        a.timeout_s,
        extra.signal,
      );
      const data = objectOf(json);
      const groups = Array.isArray(data.config) ? (data.config as Array<Record<string, unknown>>) : [];
      const changes = groups.flatMap((g) =>
        Array.isArray(g.changes) ? (g.changes as Array<Record<string, unknown>>) : [],
      );
      const lines = changes
        .slice(0, 20)
        .map(
          (c) => `  ${String(c.key)}: ${JSON.stringify(c.from ?? null)} → ${JSON.stringify(c.to ?? null)}`,
        );
      const config = changes;
      const summary = [
        data.sameConfig === true ? 'same config' : `${config.length} config differences`,
        ...lines,
      ].join('\n');
      return toolResult(summary, data);
    },
  );
}
