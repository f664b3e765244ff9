/**
 * Reading a log once (`status`, `runs`, `show`): a path or `-` into an analysis, continuing from the ledger's saved
 * state where there is one, with one-line errors for everything a user can get wrong.
 */
import fs from 'node:fs';
import type { LaunchRecord } from '../core/campaign/records.js';
import type { AnalyzerOptions } from '../core/reading/analyzer.js';
import { UsageError } from '../errors.js';
import {
  analyzeFifo,
  analyzeStream,
  describeFsError,
  localKind,
  NOT_REGULAR,
  type ReadResult,
} from '../sources/file.js';
import type { SshOptions, SshSession } from '../sources/ssh/session.js';
import { parseTarget } from '../sources/target.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { recordFromReport } from '../store/record.js';
import { LedgerError } from '../store/types.js';
import { type IngestOptions, ingestLocal } from './ingest.js';
import { logIdentity } from './recording.js';

/** True when the argument names a container (`docker://NAME`, `docker://HOST/NAME`). */
export function isContainer(target: string): boolean {
  return target.startsWith('docker://');
}

/** True when the argument names a file on another machine (`host:path`, `user@host:path`, `ssh://`). */
export function isRemote(target: string): boolean {
  try {
    return target !== '-' && parseTarget(target).kind === 'ssh';
  } catch {
    // A malformed ssh:// is remote too; readLog reports what is wrong with it.
    return true;
  }
}

export interface ReadLogOptions extends AnalyzerOptions, Pick<IngestOptions, 'onSettled'> {
  /** Called once when a FIFO has had no writer for a second: the face tells the user what it waits for. */
  onWaitingForWriter?: (path: string) => void;
}

/**
 * Reads a log, recording its launches when a ledger is given. A local file continues from where the ledger
 * left it (a 2 GB log that grew by 1 MB reads about 1 MB), and so does a remote one, its launches recorded under
 * the ssh host's name. `onSettled` takes the launches as they close, for a file, local or remote (a pipe: never).
 */
export async function readLog(
  target: string,
  options: ReadLogOptions,
  ssh: SshOptions = {},
  ledger: LedgerStore | null = null,
): Promise<ReadResult> {
  const { onWaitingForWriter, ...opts } = options;
  if (target === '-') return analyzeStream(process.stdin, opts);
  let t: ReturnType<typeof parseTarget>;
  try {
    t = parseTarget(target);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (t.kind === 'local') {
    const kind = localKind(t.path);
    if (kind === 'stream') return analyzeFifo(t.path, opts, onWaitingForWriter);
    if (kind === 'socket')
      throw new UsageError(
        describeFsError(t.path, Object.assign(new Error('socket'), { code: NOT_REGULAR.socket })),
      );
    if (kind === 'device')
      throw new UsageError(
        `${t.path}: a device, not a log file (name the server's log file, or pipe it: cmd | firedup status -)`,
      );
    if (kind === 'pseudo')
      throw new UsageError(
        `${t.path}: a kernel pseudo-file (/proc, /sys), not a log file (name the server's log file, or pipe it: cmd | firedup status -)`,
      );
    return await ingestLocal(ledger, t.path, opts);
  }
  if (t.kind === 'docker') {
    // docker loads only for a container, as ssh does for a remote log.
    const [{ ingestDocker }, { DockerError }] = await Promise.all([
      import('./ingest-docker.js'),
      import('../sources/docker/cli.js'),
    ]);
    try {
      return await ingestDocker(ledger, { ...t, ssh }, opts);
    } catch (err) {
      if (err instanceof LedgerError || err instanceof DockerError) throw new UsageError(err.message);
      throw err;
    }
  }
  // ssh loads only for a remote log: its modules (child_process among them) cost a local read milliseconds.
  const [{ SshSession: Session }, { ingestRemote }] = await Promise.all([
    import('../sources/ssh/session.js'),
    import('./ingest-remote.js'),
  ]);
  let session: SshSession;
  try {
    session = new Session(t, { persistSec: 1, ...ssh });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  try {
    return await ingestRemote(ledger, session, { host: t.host, path: t.path }, opts);
  } catch (err) {
    if (err instanceof LedgerError) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * The warning a read owes the user: a damaged saved state was dropped and the log read afresh (the answer is
 * right; the user is told once). The face prints it.
 */
export function readWarning(target: string, res: ReadResult): string | null {
  return res.damaged ? `${target}: the ledger's saved state was damaged (${res.damaged}); read afresh` : null;
}

/** Says why a file gave no launch, when the reason is the file itself. */
export function explainNoLaunch(target: string, res: ReadResult): string {
  if (res.size === 0) return `${target}: empty file, nothing to report`;
  if (res.head ? binaryBytes(res.head) : target !== '-' && looksBinary(target))
    return `${target}: looks like a binary file, not a text log`;
  return `${target}: no server launch recognised in ${res.report.lines} line${res.report.lines === 1 ? '' : 's'} (not an SGLang, vLLM, TensorRT-LLM, TGI or llama.cpp log? --engine forces one)`;
}

function looksBinary(path: string): boolean {
  try {
    const fd = fs.openSync(path, 'r');
    const buf = Buffer.alloc(8192);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    fs.closeSync(fd);
    return binaryBytes(buf.subarray(0, n));
  } catch {
    return false;
  }
}

/** More than 5 % NULs and control bytes (but tab, newlines and ESC) in a log's first bytes: not text. */
function binaryBytes(buf: Buffer): boolean {
  let odd = 0;
  for (const c of buf) if (c === 0 || (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 27)) odd++;
  return buf.length > 0 && odd / buf.length > 0.05;
}

/**
 * A log's launches (as read by readLog) as records: the ledger's ids where it keeps them, so that what `diff`
 * prints can be given to `show` and `diff` afterwards. With a ledger, the launches it keeps instead of the report
 * are left out but for the one before the last.
 */
export async function launchRecords(
  arg: string,
  res: ReadResult,
  ledger: LedgerStore | null,
): Promise<LaunchRecord[]> {
  const t = parseTarget(arg);
  const host = t.kind === 'local' ? 'localhost' : (t.host ?? 'localhost');
  const now = Date.now() / 1000;
  const stored = (res as { records?: LaunchRecord[] }).records;
  // The launch before the last, where the ledger keeps it rather than the report (`diff LOG` compares them).
  const n = res.report.launches.length;
  const out: LaunchRecord[] = res.earlier && n < 2 ? await res.earlier.last(2 - n) : [];
  for (const l of res.report.launches) {
    const rec = recordFromReport(
      { ...l, engine: l.engine ?? res.report.engine },
      { host, path: logIdentity(arg)?.path ?? arg, fileId: null, now },
    );
    const kept =
      stored?.find((r) => r.startOffset === l.startOffset)?.id ?? (ledger ? await ledger.keptId(rec) : null);
    out.push(kept ? { ...rec, id: kept } : rec);
  }
  return out;
}
