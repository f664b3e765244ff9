/**
 * `/api/events`: a Server-Sent Events stream per open page. `live` carries a LiveTarget, `launch` a
 * LaunchSummary; a `: ping` comment every 15 s keeps proxies and idle timeouts from closing the stream.
 */
import type { ServerResponse } from 'node:http';

const PING_MS = 15_000;
/** Bytes queued for one client beyond which it is dropped. */
const MAX_BACKLOG = 8 << 20;

export class EventHub {
  private readonly clients = new Set<ServerResponse>();
  private readonly timer: NodeJS.Timeout;

  constructor(pingMs = PING_MS) {
    this.timer = setInterval(() => {
      for (const c of this.clients) c.write(': ping\n\n');
    }, pingMs);
    this.timer.unref();
  }

  /** Takes over a response: headers are written; `initial` events are sent first (the state right now). */
  attach(res: ServerResponse, headers: Record<string, string>, initial: Array<[string, unknown]>): void {
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
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
  }

  send(event: string, data: unknown): void {
    if (this.clients.size === 0) return;
    const f = frame(event, data);
    for (const c of this.clients) {
      // A page that stopped reading (a suspended laptop) is dropped rather than buffered without end; its
      // EventSource reconnects and gets the current state first.
      if (c.writableLength > MAX_BACKLOG) c.destroy();
      else c.write(f);
    }
  }

  get size(): number {
    return this.clients.size;
  }

  close(): void {
    clearInterval(this.timer);
    for (const c of this.clients) c.end();
    this.clients.clear();
  }
}

/** One event; JSON has no raw newlines, so the data is always one `data:` line. */
function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
