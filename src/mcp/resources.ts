/**
 * Resources: each recorded launch as `firedup://launch/ID` (its `show --json` report), and a log's latest
 * launch as `firedup://log/PATH` (its `status --json`; PATH as given to the commands: /abs/path, rel/path,
 * host:/path). A client that subscribes to one is told (notifications/resources/updated) when its reading
 * changes: a new phase, a shard further, a verdict, a new launch.
 */
import fs from 'node:fs';
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ledgerArgs, type McpContext } from './context.js';
import { checkTarget, cliJson } from './result.js';

const LAUNCH_PREFIX = 'firedup://launch/';
const LOG_PREFIX = 'firedup://log/';
/** Subscriptions one client may hold: each costs a poll. */
export const MAX_SUBSCRIPTIONS = 32;
const LOCAL_POLL_MS = 1000;
const REMOTE_POLL_MS = 10_000;

type Obj = Record<string, unknown>;

export function logOfUri(uri: string): string {
  if (!uri.startsWith(LOG_PREFIX)) throw new Error(`${uri}: not a firedup://log/ resource`);
  let p: string;
  try {
    p = decodeURIComponent(uri.slice(LOG_PREFIX.length));
  } catch {
    throw new Error(`${uri}: bad percent-escape in the path`);
  }
  if (!p) throw new Error(`${uri}: names no log`);
  return checkTarget(p, 'log');
}

export function launchOfUri(uri: string): string {
  const id = uri.slice(LAUNCH_PREFIX.length);
  if (!uri.startsWith(LAUNCH_PREFIX) || !/^(?:last(?:~\d{1,6})?|[0-9a-f]{4,64})$/i.test(id))
    throw new Error(`${uri}: name a launch as firedup://launch/ID (4+ hex characters of its id)`);
  return id;
}

async function readLog(ctx: McpContext, log: string, signal?: AbortSignal): Promise<Obj> {
  const { json } = await cliJson(['status', '--json', ...ledgerArgs(ctx), log], [0, 2, 3, 4, 5], 300, signal);
  return json as Obj;
}

async function readLaunch(ctx: McpContext, id: string, signal?: AbortSignal): Promise<Obj> {
  const { json } = await cliJson(['show', id, '--json', ...ledgerArgs(ctx)], [0], 60, signal);
  return json as Obj;
}

/** What a subscriber is told about: the reading's milestones, not its clocks (quietFor changes every second). */
export function digest(j: Obj): string {
  const live = (j.live ?? {}) as Obj;
  const prog = (j.progress ?? {}) as Obj;
  const graph = (j.graphProgress ?? {}) as Obj;
  const failure = (j.failure ?? {}) as Obj;
  const tp = (j.throughput ?? {}) as Obj;
  return JSON.stringify([
    j.launchCount ?? j.id,
    j.outcome,
    j.phase,
    live.state ?? j.state,
    prog.done,
    graph.done,
    failure.class ?? j.failureClass,
    tp.samples,
    Array.isArray(j.benches) ? j.benches.length : null,
  ]);
}

export function registerResources(server: McpServer, ctx: McpContext): void {
  server.registerResource(
    'launch',
    new ResourceTemplate(`${LAUNCH_PREFIX}{id}`, {
      list: async () => {
        const { json } = await cliJson(['runs', '--json', '--limit', '100', ...ledgerArgs(ctx)], [0], 60);
        const launches = (Array.isArray((json as Obj).launches) ? (json as Obj).launches : []) as Obj[];
        return {
          resources: launches.map((l) => ({
            uri: `${LAUNCH_PREFIX}${String(l.id)}`,
            name: `${String(l.id).slice(0, 8)} ${String(l.model ?? 'unknown model')} ${String(l.state ?? l.outcome)}`,
            description: `${String(l.engine ?? '?')} on ${String(l.host)}: ${String(l.path)}`,
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      title: 'A recorded launch',
      description: 'its report, as `firedup show ID --json`',
      mimeType: 'application/json',
    },
    async (uri, _vars, extra) => {
      const data = await readLaunch(ctx, launchOfUri(uri.href), extra.signal);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(data) }] };
    },
  );

  server.registerResource(
    'log',
    new ResourceTemplate(`${LOG_PREFIX}{+path}`, { list: undefined }),
    {
      title: "A log's latest launch",
      description: 'the latest launch of a log, judged now, as `firedup status --json PATH`',
      mimeType: 'application/json',
    },
    async (uri, _vars, extra) => {
      const data = await readLog(ctx, logOfUri(uri.href), extra.signal);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(data) }] };
    },
  );

  const subs = new Map<string, { timer: NodeJS.Timeout; last: string | null }>();
  const low = server.server;
  low.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  low.setRequestHandler(SubscribeRequestSchema, async (req) => {
    const uri = req.params.uri;
    if (subs.has(uri)) return {};
    if (subs.size >= MAX_SUBSCRIPTIONS)
      throw new Error(`at most ${MAX_SUBSCRIPTIONS} subscriptions: unsubscribe from one first`);
    const isLog = uri.startsWith(LOG_PREFIX);
    const target = isLog ? logOfUri(uri) : launchOfUri(uri);
    const remote = isLog && /^[^/]*:/.test(target) && !fs.existsSync(target);
    const sub = { timer: undefined as unknown as NodeJS.Timeout, last: null as string | null };
    let stat = '';
    let busy = false;
    const poll = async () => {
      if (busy) return;
      if (isLog && !remote) {
        // a local log is read again only when it changed
        let now = 'missing';
        try {
          const st = fs.statSync(target);
          now = `${st.size}:${st.mtimeMs}:${st.ino}`;
        } catch {}
        if (now === stat && sub.last !== null) return;
        stat = now;
      }
      busy = true;
      try {
        const d = digest(isLog ? await readLog(ctx, target) : await readLaunch(ctx, target));
        if (sub.last !== null && d !== sub.last && subs.has(uri)) await low.sendResourceUpdated({ uri });
        sub.last = d;
      } catch {
        // a log not there yet, a host down: the next poll tries again
      } finally {
        busy = false;
      }
    };
    sub.timer = setInterval(poll, isLog && !remote ? LOCAL_POLL_MS : REMOTE_POLL_MS);
    sub.timer.unref();
    subs.set(uri, sub);
    await poll();
    return {};
  });
  low.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
    const sub = subs.get(req.params.uri);
    if (sub) clearInterval(sub.timer);
    subs.delete(req.params.uri);
    return {};
  });
  const prevClose = low.onclose;
  low.onclose = () => {
    for (const s of subs.values()) clearInterval(s.timer);
    subs.clear();
    prevClose?.();
  };
}
