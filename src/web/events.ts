/**
 * `/api/events`: a Server-Sent Events stream per open page. `live` carries a LiveTarget, `launch` a
 * LaunchSummary, `summary` a LiveSummary; a `: ping` comment every 15 s keeps proxies and idle timeouts from
 * closing the stream.
 *
 * A client gets the live cards it asked for (`?targets=a,b`, or `?targets=*` for every one), and otherwise only
 * the summary: with 200 targets, sending each of 200 pages every card on connect was 312 MB in 30 s.
 */
import type { ServerResponse } from 'node:http';

const PING_MS = 15_000;
/**
 * Bytes queued in the socket past which a client's events wait in its own table instead, one per key (a
 * card, a launch): a page that reads slowly gets each card's latest state, not every state it missed.
 */
const HIGH_WATER = 256 << 10;
/** Events waiting for one client past which it is dropped: its EventSource reconnects and gets the state anew. */
const MAX_PENDING = 2000;
/** At most this many names in `?targets=`; the live page that wants them all asks `targets=*`. */
export const MAX_TARGETS = 1000;

/** What a client asked for: every card, the cards named, or none (the summary only). */
export type Want = 'all' | ReadonlySet<string> | null;

/** `?targets=` as a Want; a bad value throws with the one line the 400 says. */
export function parseWant(q: URLSearchParams): Want {
  const all = q.getAll('targets');
  if (!all.length) return null;
  const names = all
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.includes('*')) return 'all';
  if (names.length > MAX_TARGETS)
    throw new Error(
      `targets=: at most ${MAX_TARGETS} names (${names.length} given); targets=* for every one`,
    );
  return names.length ? new Set(names) : null;
}

interface Client {
  res: ServerResponse;
  want: Want;
  /** key → frame, waiting for the socket to drain; null while none waits. */
  pending: Map<string, string> | null;
}

export class EventHub {
  private readonly clients = new Set<Client>();
  private readonly timer: NodeJS.Timeout;

  constructor(pingMs = PING_MS) {
    this.timer = setInterval(() => {
      for (const c of this.clients) if (!c.pending) c.res.write(': ping\n\n');
    }, pingMs);
    this.timer.unref();
  }

  /** Takes over a response: headers are written; `initial` events are sent first (the state right now). */
  attach(
    res: ServerResponse,
    headers: Record<string, string>,
    want: Want,
    initial: Array<[string, unknown]>,
  ): void {
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      // nginx and friends would otherwise buffer the stream.
      'X-Accel-Buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    for (const [event, data] of initial) res.write(frame(event, data));
    const c: Client = { res, want, pending: null };
    this.clients.add(c);
    res.on('drain', () => this.flush(c));
    res.on('close', () => this.clients.delete(c));
  }

  /** Whether any client takes the live card of `target` (scrubbing one costs a copy of the launch). */
  wants(target: string): boolean {
    for (const c of this.clients) if (takes(c.want, target)) return true;
    return false;
  }

  /**
   * One event to every client, or with `target` only to those that asked for that card. `key` names what
   * the event is the latest state of: a client that is behind keeps only the last event per key.
   */
  send(event: string, data: unknown, key: string, target?: string): void {
    let f: string | null = null;
    for (const c of this.clients) {
      if (target !== undefined && !takes(c.want, target)) continue;
      f ??= frame(event, data);
      if (c.pending || c.res.writableLength > HIGH_WATER) {
        c.pending ??= new Map();
        // Re-inserted, so the table stays in the order the states came.
        c.pending.delete(key);
        c.pending.set(key, f);
        if (c.pending.size > MAX_PENDING) {
          this.clients.delete(c);
          c.res.destroy();
        }
      } else c.res.write(f);
    }
  }

  private flush(c: Client): void {
    if (!c.pending) return;
    for (const [key, f] of c.pending) {
      if (c.res.writableLength > HIGH_WATER) return;
      c.pending.delete(key);
      c.res.write(f);
    }
    c.pending = null;
  }

  get size(): number {
    return this.clients.size;
  }

  close(): void {
    clearInterval(this.timer);
    for (const c of this.clients) c.res.end();
    this.clients.clear();
  }
}

function takes(want: Want, target: string): boolean {
  return want === 'all' || want?.has(target) === true;
}

/** One event; JSON has no raw newlines, so the data is always one `data:` line. */
function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
