/**
 * The ssh hosts of a fleet (`ps`, `serve`): one SshSession per host, shared by every target on it, so all
 * their commands (tail streams, stat polls, /proc and nvidia-smi probes) ride one master connection and one
 * remote shell per lane. Each host is connected once, at most `concurrency` at a time, with a short
 * ConnectTimeout: a host that does not answer is known as unreachable within seconds and holds up no other.
 */

import {
  classifySsh,
  SshError,
  type SshErrorKind,
  type SshHost,
  type SshOptions,
  SshSession,
} from '../sources/ssh/session.js';
import { parseTarget } from '../sources/target.js';

export type HostReach =
  | { state: 'connecting' }
  | { state: 'up' }
  | { state: 'unreachable'; kind: SshErrorKind; message: string };

export interface SshHostsOptions {
  /** Hosts connected at once (default 8). */
  concurrency?: number;
  /** Seconds ssh waits for a host to answer (default 5; `ConnectTimeout` in ssh_options overrides it). */
  connectTimeoutSec?: number;
  /** Seconds before an unreachable host is tried again (default 15). */
  retrySec?: number;
}

interface Host {
  session: SshSession;
  reach: HostReach;
  /** Settles when the current connection attempt has an answer. */
  attempt: Promise<HostReach> | null;
  failedAt: number;
}

/** The key of a host as ssh sees it: two targets with the same key share a connection. */
export function hostKey(t: SshHost): string {
  return `${t.user ? `${t.user}@` : ''}${t.host}${t.port ? `:${t.port}` : ''}`;
}

export class SshHosts {
  private readonly hosts = new Map<string, Host>();
  private readonly limit: number;
  private readonly retryMs: number;
  private readonly timeoutSec: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly ssh: SshOptions,
    opts: SshHostsOptions = {},
  ) {
    this.limit = Math.max(1, opts.concurrency ?? 8);
    this.retryMs = (opts.retrySec ?? 15) * 1000;
    this.timeoutSec = opts.connectTimeoutSec ?? 5;
  }

  /** The shared session for a remote log's host (made on first use). */
  session(log: string): SshSession {
    return this.host(log).session;
  }

  reach(log: string): HostReach {
    return this.host(log).reach;
  }

  /**
   * Opens the host's master connection (once; again after retrySec when it failed) and says whether it is
   * up. Concurrent calls for one host share the attempt.
   */
  connect(log: string): Promise<HostReach> {
    const h = this.host(log);
    if (h.attempt) return h.attempt;
    if (h.reach.state === 'up') return Promise.resolve(h.reach);
    if (h.reach.state === 'unreachable' && Date.now() - h.failedAt < this.retryMs)
      return Promise.resolve(h.reach);
    h.attempt = this.slot(() => this.open(h)).then((r) => {
      h.reach = r;
      h.attempt = null;
      if (r.state === 'unreachable') h.failedAt = Date.now();
      return r;
    });
    return h.attempt;
  }

  /** Closes every master connection. */
  async close(): Promise<void> {
    await Promise.all([...this.hosts.values()].map((h) => h.session.close()));
  }

  private host(log: string): Host {
    const t = parseTarget(log);
    if (t.kind !== 'ssh') throw new Error(`${log}: not a remote log`);
    const key = hostKey(t);
    let h = this.hosts.get(key);
    if (!h) {
      // ssh keeps the first value of an option: the user's own ConnectTimeout, if any, wins over this one.
      const options = [...(this.ssh.options ?? []), `ConnectTimeout=${this.timeoutSec}`];
      h = {
        session: new SshSession(t, { ...this.ssh, options }),
        reach: { state: 'connecting' },
        attempt: null,
        failedAt: 0,
      };
      this.hosts.set(key, h);
    }
    return h;
  }

  /** Runs `true` on the host: this makes the master connection every later command rides. */
  private open(h: Host): Promise<HostReach> {
    return new Promise((resolve) => {
      const child = h.session.spawn(['true']);
      let stderr = '';
      child.stderr?.on('data', (b: Buffer) => {
        stderr += b.toString();
      });
      // ConnectTimeout bounds the TCP connect; this bounds a host that accepts and then never speaks.
      const timer = setTimeout(() => child.kill('SIGKILL'), (this.timeoutSec + 3) * 1000);
      const done = (code: number | null) => {
        clearTimeout(timer);
        if (code === 0) return resolve({ state: 'up' });
        // ssh's own failures (255, or killed at the deadline) say why on stderr; a login shell that fails
        // `true` is as unusable.
        const err =
          code === null || code === 255
            ? classifySsh(stderr || 'timed out', h.session.target.host, h.session.label)
            : new SshError('other', `${h.session.label}: the remote shell failed (code ${code})`);
        resolve({ state: 'unreachable', kind: err.kind, message: err.message });
      };
      child.on('error', (e) => {
        stderr += e.message;
        done(255);
      });
      // 'exit', not 'close': with ControlPersist the master lives on in the background after `true` ends.
      child.on('exit', (code) => setTimeout(() => done(code), code === 0 ? 0 : 50));
    });
  }

  private async slot<T>(fn: () => Promise<T>): Promise<T> {
    while (this.running >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}
