/**
 * One long-lived `sh` on the remote host that runs firedup's short commands (stat polls, /proc snapshots,
 * nvidia-smi) one after another. Each plain `ssh host cmd` starts the user's login shell, and on GPU boxes
 * that shell often sources conda or pyenv hooks costing a few hundred ms of CPU: at one probe a second that
 * is most of a core. Through this shell the login shell runs once per session.
 *
 * Framing: each command runs as `{ CMD ; } </dev/null` (so it can never read the commands that follow),
 * then the shell prints `\n<token> <id> <status>\n` on stdout and `\n<token> <id>\n` on stderr. The token is
 * random per shell, so no file content can forge the end of a reply. Commands are the same quoted argument
 * vectors as before (shCommand): the values are still data, never code.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/** The longest a login may take before the command waiting for it gives up. */
const START_TIMEOUT_MS = 30_000;

export interface ShellResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

interface Request {
  id: number;
  command: string;
  timeoutMs: number;
  resolve(r: ShellResult): void;
}

/** Starts the remote `sh` (an ssh client process whose stdin, stdout and stderr are pipes). */
export type ShellSpawner = () => ChildProcess;

export class RemoteShell {
  private child: ChildProcess | null = null;
  private readonly token = `@@firedup-${randomBytes(12).toString('hex')}`;
  private queue: Request[] = [];
  private current: Request | null = null;
  private out: Buffer[] = [];
  private outLen = 0;
  private err = '';
  private code: number | null | undefined;
  private errDone = false;
  private timer: NodeJS.Timeout | null = null;
  private nextId = 1;
  private closed = false;

  constructor(private readonly spawnShell: ShellSpawner) {}

  /** Runs one command line (already quoted) to completion; a timeout resolves with code null. */
  run(command: string, timeoutMs: number): Promise<ShellResult> {
    if (this.closed) return Promise.resolve({ code: 255, stdout: Buffer.alloc(0), stderr: 'shell closed' });
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, command, timeoutMs, resolve });
      this.pump();
    });
  }

  close(): void {
    this.closed = true;
    this.kill();
    for (const r of this.queue.splice(0))
      r.resolve({ code: 255, stdout: Buffer.alloc(0), stderr: 'shell closed' });
  }

  private pump(): void {
    if (this.current || this.queue.length === 0) return;
    const req = this.queue.shift()!;
    this.out = [];
    this.outLen = 0;
    this.err = '';
    if (!this.child) this.start();
    this.current = req;
    this.code = undefined;
    this.errDone = false;
    // Logging in (a login shell sourcing conda can take seconds) is not the command's time: its clock starts
    // once the shell has answered the hello.
    this.armTimer(this.helloPending ? START_TIMEOUT_MS : req.timeoutMs);
    const t = this.token;
    this.child!.stdin!.write(
      `{ ${req.command}\n} </dev/null; printf '\\n%s %s %s\\n' ${t} ${req.id} $?; printf '\\n%s %s\\n' ${t} ${req.id} >&2\n`,
    );
  }

  private start(): void {
    const child = this.spawnShell();
    this.child = child;
    child.stdin!.on('error', () => {});
    child.stdout!.on('data', (b: Buffer) => this.onOut(child, b));
    child.stderr!.on('data', (b: Buffer) => this.onErr(child, b));
    child.on('error', (e) => this.onExit(child, 255, `cannot run the ssh client: ${e.message}`));
    child.on('close', (code) => this.onExit(child, code ?? 255, ''));
    // Whatever the login shell prints before the first reply (a motd, a banner from .bashrc) belongs to no
    // command: an empty reply with id 0 absorbs it.
    this.helloPending = true;
    child.stdin!.write(`printf '\\n%s 0 0\\n' ${this.token}; printf '\\n%s 0\\n' ${this.token} >&2\n`);
  }

  private helloPending = false;
  private helloOut = false;
  private helloErr = false;

  private onOut(child: ChildProcess, b: Buffer): void {
    if (child !== this.child) return;
    this.out.push(b);
    this.outLen += b.length;
    this.check();
  }

  private onErr(child: ChildProcess, b: Buffer): void {
    if (child !== this.child) return;
    this.err += b.toString('utf8');
    this.check();
  }

  /** Cuts stdout at the reply marker of `id`: the status, or undefined while it has not arrived. */
  private cutOut(id: number): number | undefined {
    const mark = `\n${this.token} ${id} `;
    const all = Buffer.concat(this.out, this.outLen);
    const at = all.indexOf(mark);
    const eol = at < 0 ? -1 : all.indexOf('\n', at + mark.length);
    if (eol < 0) {
      this.out = [all];
      return undefined;
    }
    const code = Number(all.subarray(at + mark.length, eol).toString('latin1'));
    // Only the hello can be followed by more (the first command's reply); it starts a fresh buffer.
    const rest = all.subarray(eol + 1);
    this.out = [all.subarray(0, at)];
    this.outLen = at;
    this.restOut = rest;
    return code;
  }

  private cutErr(id: number): boolean {
    const mark = `\n${this.token} ${id}\n`;
    const at = this.err.indexOf(mark);
    if (at < 0) return false;
    this.restErr = this.err.slice(at + mark.length);
    this.err = this.err.slice(0, at);
    return true;
  }

  private restOut: Buffer = Buffer.alloc(0);
  private restErr = '';

  private check(): void {
    if (this.helloPending) {
      if (!this.helloOut && this.cutOut(0) !== undefined) {
        this.helloOut = true;
        this.out = this.restOut.length ? [this.restOut] : [];
        this.outLen = this.restOut.length;
      }
      if (!this.helloErr && this.cutErr(0)) {
        this.helloErr = true;
        this.err = this.restErr;
      }
      if (!(this.helloOut && this.helloErr)) return;
      this.helloPending = this.helloOut = this.helloErr = false;
      if (this.current) this.armTimer(this.current.timeoutMs);
    }
    const req = this.current;
    if (!req) return;
    if (this.code === undefined) this.code = this.cutOut(req.id);
    if (!this.errDone) this.errDone = this.cutErr(req.id);
    if (this.code !== undefined && this.errDone) this.finish(this.code, false);
  }

  private armTimer(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.finish(null, true), ms);
  }

  private finish(code: number | null, kill: boolean): void {
    const req = this.current;
    if (!req) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.current = null;
    const res = { code, stdout: Buffer.concat(this.out, this.outLen), stderr: this.err };
    this.out = [];
    this.outLen = 0;
    this.err = '';
    // A command that outlived its time may still be running there: only a new shell is sure to be free.
    if (kill) this.kill();
    req.resolve(res);
    this.pump();
  }

  private onExit(child: ChildProcess, code: number, why: string): void {
    if (child !== this.child) return;
    this.child = null;
    this.helloPending = this.helloOut = this.helloErr = false;
    const stderr = `${this.err}${why}`;
    if (this.current) {
      this.err = stderr;
      this.finish(code, false);
    }
  }

  private kill(): void {
    const c = this.child;
    this.child = null;
    this.helloPending = this.helloOut = this.helloErr = false;
    if (c && c.exitCode === null) {
      c.stdin?.end();
      c.kill('SIGTERM');
    }
  }
}
