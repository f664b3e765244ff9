/**
 * `firedup mcp`'s front: the answer to the client's `initialize` before the MCP SDK is loaded. bin/firedup.js
 * runs this (bundled on its own, dist/bundle/cli/mcp-front.cjs) before the `mcp` bundle: it reads standard
 * input up to the first line and, when that line is an `initialize` the SDK would surely accept, writes the
 * SDK's answer (initialize.ts) at once. The agent's first wait is then about a bare Node start, where loading
 * the SDK, zod and the tools' schemas took as long again. The bytes read are handed to the server
 * (stdio.ts), which reads them first: the SDK's server sees the same `initialize`, so it is initialized as
 * ever (the client's capabilities recorded), and its own answer, swallowed, is checked against the one given.
 *
 * Anything else leaves the SDK to answer as before: other arguments (--http, a typo, --help), standard
 * input a terminal, another first message, an `initialize` with fields the front does not check (`_meta`,
 * icons, odd capabilities), FIREDUP_MCP_FRONT=off. Reading blocks until the first line comes, as the server
 * would wait for it; the process has nothing else to do until then (a SIGINT or SIGTERM meanwhile ends it as
 * during any start, by the signal's default action, the server's handlers not being installed yet).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { initializeResult } from './initialize.js';

/** What the front read and what it answered, for the server (stdio.ts): on globalThis, under this key. */
export interface FrontHandoff {
  /** Every byte read from standard input, first line included: the server reads them before the rest. */
  bytes: Buffer;
  /** The `initialize` answered (its id and the line written), or null: the server answers all. */
  answered: { id: string | number; text: string } | null;
}

const KEY = Symbol.for('firedup.mcp.front');

/** The handoff of this process's front, once (undefined: no front ran, or it was taken). */
export function takeFrontHandoff(): FrontHandoff | undefined {
  const g = globalThis as { [KEY]?: FrontHandoff };
  const h = g[KEY];
  delete g[KEY];
  return h;
}

/**
 * The arguments whose `firedup mcp` is sure to serve stdio (the others may be usage errors, help or --http,
 * which the command itself says): --allow-launch, --no-ledger, --ledger PATH, not --ledger with --no-ledger.
 */
export function frontArgs(argv: readonly string[]): boolean {
  let ledger = false;
  let noLedger = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--allow-launch') continue;
    if (a === '--no-ledger') noLedger = true;
    else if (a === '--ledger' && i + 1 < argv.length && argv[i + 1] !== '') {
      ledger = true;
      i++;
    } else if (a.startsWith('--ledger=') && a.length > 9) ledger = true;
    else return false;
  }
  return !(ledger && noLedger);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const optString = (v: unknown): boolean => v === undefined || typeof v === 'string';
/** Objects all the way down (a few levels): what every client capability but roots' flag consists of. */
const objects = (v: unknown, depth = 4): boolean =>
  isObj(v) && depth > 0 && Object.values(v).every((x) => objects(x, depth - 1));

/**
 * The id and requested version of an `initialize` request that the SDK's schemas (types.js: a strict
 * JSON-RPC request, InitializeRequestSchema) would accept, or null for anything it might not: this check is
 * stricter than theirs, never looser, so that what the front answers the SDK would have answered the same.
 */
export function acceptInitialize(msg: unknown): { id: string | number; protocolVersion: string } | null {
  if (!isObj(msg) || msg.jsonrpc !== '2.0' || msg.method !== 'initialize') return null;
  for (const k of Object.keys(msg))
    if (k !== 'jsonrpc' && k !== 'id' && k !== 'method' && k !== 'params') return null;
  const id = msg.id;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return null;
  const p = msg.params;
  if (!isObj(p) || typeof p.protocolVersion !== 'string' || p._meta !== undefined) return null;
  const info = p.clientInfo;
  if (!isObj(info) || typeof info.name !== 'string' || typeof info.version !== 'string') return null;
  if (!optString(info.title) || !optString(info.websiteUrl) || !optString(info.description)) return null;
  if (info.icons !== undefined) return null;
  const caps = p.capabilities;
  if (!isObj(caps)) return null;
  for (const [k, v] of Object.entries(caps)) {
    if (k === 'roots') {
      if (!isObj(v) || !(v.listChanged === undefined || typeof v.listChanged === 'boolean')) return null;
    } else if (['experimental', 'sampling', 'elicitation', 'tasks', 'extensions'].includes(k)) {
      if (!objects(v)) return null;
    }
    // any other capability is dropped by the SDK's schema, whatever it holds
  }
  return { id: id as string | number, protocolVersion: p.protocolVersion };
}

/** The package's version, as src/cli/mcp.ts reads it (three levels up from dist/bundle/cli/ and dist/src/mcp/). */
function packageVersion(): string {
  return (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;
}

/** Reads fd until a newline or its end: every byte read, and whether a line is among them. */
function readFirstLine(fd: number): Buffer {
  const chunks: Buffer[] = [];
  for (;;) {
    const buf = Buffer.allocUnsafe(65536);
    let n: number;
    try {
      n = fs.readSync(fd, buf, 0, buf.length, null);
    } catch (err) {
      // a non-blocking pipe with nothing in it yet (EAGAIN), or no standard input at all: the server reads on
      if ((err as NodeJS.ErrnoException).code === 'EINTR') continue;
      break;
    }
    if (n === 0) break;
    const got = buf.subarray(0, n);
    chunks.push(got);
    if (got.includes(10)) break;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** Writes all of text to fd, synchronously; the rest through process.stdout where the pipe is non-blocking. */
function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text);
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(fd, buf, off);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // the client went away: as the server would on its stdout's EPIPE (src/cli/main.ts)
      if (code === 'EPIPE') process.exit(0);
      if (code !== 'EAGAIN') throw err;
      process.stdout.write(buf.subarray(off));
      return;
    }
  }
}

/**
 * The front (see the top of this file), for `firedup mcp ARGV`: answers `initialize` when it can and leaves
 * the handoff for the server. Returns whether it answered.
 */
export function answerInitialize(argv: readonly string[], fds = { in: 0, out: 1 }): boolean {
  if (process.env.FIREDUP_MCP_FRONT === 'off' || !frontArgs(argv)) return false;
  try {
    // a terminal (a character device, as /dev/null is) is a person typing, or nothing to read: not for the front
    if (fs.fstatSync(fds.in).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  const bytes = readFirstLine(fds.in);
  const handoff: FrontHandoff = { bytes, answered: null };
  (globalThis as { [KEY]?: FrontHandoff })[KEY] = handoff;
  const nl = bytes.indexOf(10);
  if (nl < 0) return false;
  let msg: unknown;
  try {
    // as the SDK's ReadBuffer reads a line (shared/stdio.js)
    msg = JSON.parse(bytes.toString('utf8', 0, nl).replace(/\r$/, ''));
  } catch {
    return false;
  }
  const init = acceptInitialize(msg);
  if (!init) return false;
  // as the SDK's Protocol answers a request, and its stdio transport writes a message
  const text = `${JSON.stringify({ result: initializeResult(init.protocolVersion, packageVersion()), jsonrpc: '2.0', id: init.id })}\n`;
  try {
    writeAll(fds.out, text);
  } catch {
    // standard output unusable (not a pipe's EAGAIN or EPIPE): the server's own writes will say how
    return false;
  }
  handoff.answered = { id: init.id, text };
  return true;
}
