/**
 * HTTP probes of a server on another machine: --url names it as that host sees it (often 127.0.0.1), so
 * firedup asks the multiplexed master for a local forward (`ssh -O forward -L 127.0.0.1:LOCAL:HOST:PORT`)
 * and probes the forwarded URL; the observation reports the remote URL. One forward per host:port, kept
 * for the session (it dies with the master).
 */
import net from 'node:net';
import type { HttpObservation } from '../../core/verdict/observations.js';
import { probeHttp } from '../http.js';
import { parseListening } from '../process.js';
import type { RemoteHost } from '../types.js';

/** How long a reading of the remote TCP tables answers for. */
const LISTEN_CHECK_MS = 5000;

const LOOPBACK = /^(?:127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;

/** A port free on 127.0.0.1 now (ssh binds it right after; a race lost shows as a failed forward). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export class RemoteHttp {
  private readonly forwards = new Map<string, number>();

  constructor(private readonly session: RemoteHost) {}

  /** Local port forwarded to `host:port` on the remote side, or null when the master refused or is not up. */
  private async local(host: string, port: number): Promise<number | null> {
    const key = `${host}:${port}`;
    const have = this.forwards.get(key);
    if (have !== undefined) return have;
    const lp = await freePort();
    // A hung master must not block the probe: give up after 3 s and try again next round.
    const ok = await Promise.race([
      this.session.forward(`127.0.0.1:${lp}:${host}:${port}`),
      new Promise<boolean>((r) => setTimeout(() => r(false), 3000).unref()),
    ]);
    if (!ok) return null;
    this.forwards.set(key, lp);
    return lp;
  }

  async probe(url: string, engine: string | null): Promise<HttpObservation> {
    const u = new URL(url);
    if (u.protocol !== 'http:') throw new Error(`${url}: only http:// is probed through ssh`);
    const port = Number(u.port) || 80;
    // URL keeps IPv6 hosts bracketed, which is also the form ssh's -L accepts.
    const lp = await this.local(u.hostname, port);
    if (lp === null) throw new Error(`${url}: no forward through ssh yet`);
    const local = new URL(url);
    local.hostname = '127.0.0.1';
    local.port = String(lp);
    const o = await probeHttp(local.toString(), engine);
    // Through a forward, a remote port where nothing listens does not refuse: ssh accepts locally, then the
    // request hangs or is reset. For a loopback --url the remote TCP table tells: refused, as a local probe says.
    if (
      (o.health.state === 'timeout' || o.health.state === 'error') &&
      LOOPBACK.test(u.hostname) &&
      !(await this.listens(port))
    ) {
      o.health = {
        ...o.health,
        state: 'refused',
        detail: `nothing listens on port ${port} on ${this.session.label}`,
      };
    }
    return { ...o, url };
  }

  /** Whether the remote TCP tables list `port` listening; true when they cannot be read (no claim then). */
  private async listens(port: number): Promise<boolean> {
    // While a server loads, its port stays closed for minutes: the table is read at most every few seconds.
    const hit = this.listening.get(port);
    if (hit && Date.now() - hit.at < LISTEN_CHECK_MS) return hit.listens;
    const listens = await this.readListens(port);
    this.listening.set(port, { at: Date.now(), listens });
    return listens;
  }

  private readonly listening = new Map<number, { at: number; listens: boolean }>();

  private async readListens(port: number): Promise<boolean> {
    const res = await this.session
      .run(['sh', '-c', 'cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; exit 0'], 3000)
      .catch(() => null);
    if (res?.code !== 0) return true;
    const text = res.stdout.toString('utf8');
    // Both tables in one text: each has its own header line, which parseListening skips as malformed.
    return text.trim() === '' || [...parseListening(text).values()].includes(port);
  }
}
