/**
 * Replaying a recorded log: its lines written into a file at their original timing (sped up), and the engine's
 * HTTP endpoints answered in step, so a watcher can be tried on a real launch without GPUs (`replay`, `demo`).
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ReplayLaunch, type ReplayStep, replayPhases } from '../core/replay/replay.js';
import { UsageError } from '../errors.js';

/**
 * Writes `steps` (lines of `data` with their times) to `out` (null: standard output), answering the HTTP
 * endpoints on `port` in step when one is given. 0 when done, 130/143 when stopped by SIGINT/SIGTERM.
 */
export async function runReplay(
  data: Buffer,
  steps: ReplayStep[],
  { out, port }: { out: string | null; port: number | null },
): Promise<number> {
  const server = port === null ? null : new StepServer(port, replayPhases(data.toString('utf8')));
  if (server) await server.check();
  let fd: number;
  try {
    fd = out === null ? 1 : fs.openSync(out, 'a');
  } catch (err) {
    throw new UsageError(
      `replay: --out ${out}: cannot write (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  }
  const abort = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => abort.abort(sig);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await play(steps, fd, server, abort.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (out !== null) fs.closeSync(fd);
    await server?.close();
  }
  if (abort.signal.aborted) return abort.signal.reason === 'SIGINT' ? 130 : 143;
  return 0;
}

async function play(
  steps: ReplayStep[],
  fd: number,
  server: StepServer | null,
  signal: AbortSignal,
): Promise<void> {
  const t0 = performance.now();
  for (let i = 0; i < steps.length; i++) {
    const { at, line } = steps[i]!;
    const wait = t0 + at * 1000 - performance.now();
    if (wait > 1) await sleep(wait, undefined, { signal }).catch(() => {});
    if (signal.aborted) return;
    try {
      await writeAll(fd, Buffer.from(line, 'latin1'));
    } catch (err) {
      // A closed pipe (`| head`) ends the replay; anything else is the output's problem, named once.
      if ((err as NodeJS.ErrnoException).code === 'EPIPE') return;
      throw new UsageError(`replay: cannot write the output (${(err as NodeJS.ErrnoException).code ?? err})`);
    }
    await server?.after(i + 1);
  }
}

/** One line, unbuffered, so a follower sees it when its time comes, as it would from the server. */
async function writeAll(fd: number, buf: Buffer): Promise<void> {
  for (let off = 0; off < buf.length; ) {
    try {
      off += fs.writeSync(fd, buf, off);
    } catch (err) {
      // Standard output may be a non-blocking pipe: a full pipe is waited out, not an error.
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      await sleep(5);
    }
  }
}

type State = 'down' | 'starting' | 'ready';

/** The engine's HTTP server as the log describes it, moved along line by line. */
class StepServer {
  private server: http.Server | null = null;
  private state: State = 'down';
  private launch: ReplayLaunch | null = null;
  /** What happens after each line: listen, ready, down. */
  private readonly events = new Map<number, Array<[Exclude<State, 'down'> | 'down', ReplayLaunch]>>();

  constructor(
    private readonly port: number,
    launches: ReplayLaunch[],
  ) {
    for (const l of launches) {
      if (l.listen) this.on(l.listen.line, 'starting', l);
      if (l.ready) this.on(l.ready.line, 'ready', l);
      // A shutdown closes the port before its first line is written (after the line before it).
      if (l.down) this.on(l.downBefore ? l.down.line - 1 : l.down.line, 'down', l);
    }
  }

  private on(line: number, what: State, l: ReplayLaunch): void {
    const list = this.events.get(line) ?? [];
    list.push([what, l]);
    this.events.set(line, list);
  }

  /**
   * Fails before anything is written if something already answers on the port. It connects rather than
   * binding a trial listener, which would reset a client that connected during the trial.
   */
  async check(): Promise<void> {
    const taken = await new Promise<boolean>((resolve) => {
      const sock = net.connect({ host: '127.0.0.1', port: this.port });
      sock.setTimeout(1000, () => sock.destroy());
      sock.once('connect', () => {
        sock.destroy();
        resolve(true);
      });
      // Refused is the answer we hope for; other failures are left for listen() to name.
      sock.once('close', () => resolve(false));
      sock.once('error', () => {});
    });
    if (taken) throw new UsageError(`replay: --serve ${this.port}: port already in use`);
  }

  async after(line: number): Promise<void> {
    for (const [what, l] of this.events.get(line) ?? []) {
      this.launch = l;
      if (what === 'down') await this.close();
      else {
        if (!this.server) {
          const s = http.createServer((req, res) => this.answer(req, res));
          await this.listen(s);
          this.server = s;
        }
        this.state = what;
      }
    }
  }

  async close(): Promise<void> {
    this.state = 'down';
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private listen(s: http.Server): Promise<void> {
    return new Promise((resolve, reject) => {
      s.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          new UsageError(
            err.code === 'EADDRINUSE'
              ? `replay: --serve ${this.port}: port already in use`
              : `replay: --serve ${this.port}: cannot listen (${err.code ?? err.message})`,
          ),
        ),
      );
      s.listen(this.port, '127.0.0.1', () => resolve());
    });
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const [code, body] = this.route((req.url ?? '/').split('?')[0]!);
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  /** Status and JSON body (undefined: empty) of a route, as the engine of the current launch answers it. */
  private route(path: string): [number, unknown] {
    const l = this.launch!;
    const ready = this.state === 'ready';
    // llama-server answers every route with this 503 while it loads the model.
    if (l.engine === 'llamacpp' && !ready)
      return [503, { error: { message: 'Loading model', type: 'unavailable_error', code: 503 } }];
    const model = typeof l.config.served_model_name === 'string' ? l.config.served_model_name : l.model;
    if (path === '/health')
      return l.engine === 'llamacpp' ? [200, { status: 'ok' }] : [ready ? 200 : 503, undefined];
    if (path === '/v1/models')
      return [
        200,
        {
          object: 'list',
          data: [{ id: model ?? 'model', object: 'model', created: 0, owned_by: l.engine ?? 'firedup' }],
        },
      ];
    if (l.engine === 'sglang' && (path === '/server_info' || path === '/get_server_info'))
      return [200, l.config];
    if (l.engine === 'sglang' && path === '/get_model_info')
      return [200, { model_path: l.model, is_generation: true }];
    if (l.engine === 'vllm' && path === '/version') return [200, { version: l.version ?? 'unknown' }];
    return [404, { error: { message: `${path} is not served by this replay`, code: 404 } }];
  }
}
