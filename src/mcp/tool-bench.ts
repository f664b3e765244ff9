/**
 * `bench_run`: firedup's load generator against an OpenAI-compatible server, every dimension bounded (levels,
 * requests, lengths, time), the result attached to the launch serving at the URL as `bench run` attaches it.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ledgerArgs, type McpContext } from './context.js';
import { cliJson, toolResult } from './result.js';

type Obj = Record<string, unknown>;

const ms = (d: unknown, key: string): string => {
  const v = (d as Obj | null)?.[key];
  return typeof v === 'number' ? `${v.toFixed(1)} ms` : '–';
};

export function benchSummary(j: Obj): string {
  const levels = Array.isArray(j.levels) ? (j.levels as Obj[]) : [];
  const rows = levels.map((l) => {
    const lv = (l.level ?? {}) as Obj;
    const at =
      lv.rate !== null && lv.rate !== undefined ? `rate ${lv.rate}/s` : `concurrency ${lv.concurrency}`;
    const failed = Number(l.failed ?? 0);
    const done = Number(l.completed ?? 0);
    const fails = failed ? `, ${failed} of ${done + failed} failed` : '';
    // TPOT needs two tokens: a level of one-token replies has none, and says so rather than 0.
    return `  ${at}: ${Number(l.outputTokS ?? 0).toFixed(1)} output tok/s, TTFT median ${ms(l.ttft, 'median')}, TPOT median ${ms(l.tpot, 'median')}${fails}`;
  });
  const ledger = j.ledger as Obj | null;
  const rec = ledger
    ? `recorded on launch ${String(ledger.launch).slice(0, 8)}`
    : `not recorded: ${String(j.notRecorded ?? 'ledger off')}`;
  return [`bench of ${String(j.model ?? '?')} at ${String(j.url)}`, ...rows, rec].join('\n');
}

export function registerBenchTool(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'bench_run',
    {
      title: 'Benchmark a server',
      description:
        "Streams requests to an OpenAI-compatible server (SGLang, vLLM, TRT-LLM, TGI, llama-server) at fixed concurrencies, and records the result on the launch serving at the URL (when the server's identity proves it). Run it only after `wait` said ready. Every bound is required to be small: levels, requests, lengths and time.",
      inputSchema: {
        url: z.string().url().max(2048).describe('the server, e.g. http://127.0.0.1:30000'),
        concurrency: z
          .array(z.number().int().min(1).max(1024))
          .min(1)
          .max(8)
          .default([1])
          .describe('requests in flight, one level per value'),
        requests: z
          .number()
          .int()
          .min(1)
          .max(10_000)
          .optional()
          .describe('requests per level (default max(20, 5 × concurrency))'),
        input_len: z.number().int().min(1).max(131_072).default(256),
        output_len: z.number().int().min(1).max(32_768).default(128),
        warmup: z.number().int().min(0).max(1000).default(0),
        model: z.string().max(300).optional().describe('default: the first model of /v1/models'),
        endpoint: z.enum(['completions', 'chat']).default('completions'),
        launch: z
          .string()
          .max(40)
          .optional()
          .describe('attach the result to this launch (id, last) instead of the one serving at url'),
        timeout_s: z
          .number()
          .int()
          .min(1)
          .max(3600)
          .default(600)
          .describe('the whole run is stopped after this many seconds'),
      },
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async (a, extra) => {
      const args = [
        'bench',
        'run',
        '--json',
        ...ledgerArgs(ctx),
        '--url',
        a.url,
        '--concurrency',
        a.concurrency.join(','),
      ];
      if (a.requests !== undefined) args.push('--requests', String(a.requests));
      args.push(
        '--input-len',
        String(a.input_len),
        '--output-len',
        String(a.output_len),
        '--endpoint',
        a.endpoint,
      );
      if (a.warmup) args.push('--warmup', String(a.warmup));
      if (a.model) args.push('--model', a.model);
      if (a.launch) args.push('--launch', a.launch);
      // One request may take no longer than the whole run.
      args.push('--timeout', `${a.timeout_s}s`);
      const { run, json } = await cliJson(args, [0, 1], a.timeout_s, extra.signal);
      const data = json as Obj;
      if (run.code === 1) {
        // exit 1: not one request succeeded; the server's own words for the commonest failure say why
        const levels = Array.isArray(data.levels) ? (data.levels as Obj[]) : [];
        const err = levels.flatMap((l) => (Array.isArray(l.errors) ? (l.errors as Obj[]) : []))[0];
        throw new Error(`bench run: no request succeeded${err ? `: ${String(err.message)}` : ''} (${a.url})`);
      }
      return toolResult(benchSummary(data), data);
    },
  );
}
