/**
 * Following a container's log (`watch`, `wait`, `serve`): `docker logs --timestamps --follow`, from the cursor of the
 * last line given, started again whenever the container runs again (docker's restart policy, `docker start`), and
 * from the start when another container takes the name (removed and recreated: a new log, said as `recreated`).
 */
import type { ChildProcess } from 'node:child_process';
import type { FollowEvent } from '../follow.js';
import type { LiveSource } from '../stdin.js';
import { DockerError, spawnDocker } from './cli.js';
import { probeContainer } from './inspect.js';
import { type DockerCursor, DockerLogMerge, logsArgs, stampSeconds } from './logs.js';
import type { DockerTarget } from './target.js';

export class DockerFollower implements LiveSource {
  private onEvent: (e: FollowEvent) => void = () => {};
  private cursor: DockerCursor | null = null;
  private id: string | null = null;
  private startedAt: string | null = null;
  private offset = 0;
  private child: ChildProcess | null = null;
  private merge: DockerLogMerge | null = null;
  private stopped = false;
  private missing = false;
  private lastError = '';
  private wake: (() => void) | null = null;

  constructor(
    private readonly t: DockerTarget,
    private readonly opts: { pollMs?: number } = {},
  ) {}

  start(onEvent: (e: FollowEvent) => void): void {
    this.onEvent = onEvent;
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.merge?.stop();
    this.child?.kill();
    this.wake?.();
  }

  /** When the last line given was written, from its docker stamp. */
  arrival(): number | null {
    return this.cursor ? stampSeconds(this.cursor.ts) : null;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  private async loop(): Promise<void> {
    const poll = this.opts.pollMs ?? 250;
    let follow = true;
    while (!this.stopped) {
      let c: Awaited<ReturnType<typeof probeContainer>>;
      try {
        c = await probeContainer(this.t, { existed: true, top: false });
      } catch (err) {
        const message = err instanceof DockerError ? err.message : (err as Error).message;
        if (message !== this.lastError) this.onEvent({ kind: 'error', message });
        this.lastError = message;
        await this.sleep(1000);
        continue;
      }
      this.lastError = '';
      if (this.stopped) return;
      if (c.state === null) {
        if (!this.missing) this.onEvent({ kind: 'missing' });
        this.missing = true;
        await this.sleep(poll);
        continue;
      }
      if (this.missing) this.onEvent({ kind: 'appeared' });
      this.missing = false;
      if (this.id !== null && c.id !== this.id) {
        // Another container under the name: its log is a new one, from its first line.
        this.cursor = null;
        this.offset = 0;
        this.onEvent({ kind: 'reset', reason: 'recreated' });
        follow = true;
      }
      this.id = c.id;
      // Once the follow ended, it starts again only when the container ran again (a restart, `docker start`).
      if (c.startedAt !== this.startedAt && c.state !== 'created') follow = true;
      if (follow) {
        this.startedAt = c.startedAt;
        follow = false;
        await this.followOnce();
        continue;
      }
      await this.sleep(poll);
    }
  }

  /** One `docker logs --follow` from the cursor, until it ends (the container stopped) or the watch does. */
  private followOnce(): Promise<void> {
    return new Promise((resolve) => {
      const child = spawnDocker(this.t, logsArgs(this.t.name, this.cursor, true));
      this.child = child;
      const merge = new DockerLogMerge(this.cursor, (text, cursor) => {
        this.cursor = cursor;
        this.onEvent({ kind: 'data', chunk: text, offset: this.offset });
        this.offset += text.length;
      });
      this.merge = merge;
      child.on('error', () => {});
      void merge.attach(child.stdout!, child.stderr!).then(() => {
        this.child = null;
        resolve();
      });
    });
  }
}
