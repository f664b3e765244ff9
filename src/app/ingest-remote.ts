/**
 * `status`/`runs` on a log on another machine, continued from where the ledger left it: one short command
 * checks the file is the same one (inode, and the POSIX cksum of its head), then only the bytes after the
 * stored offset cross the wire (`tail -c +N`). The seeds re-read the whole log on the server at every poll.
 */
import type { Readable } from 'node:stream';
import { type AnalyzerOptions, LogAnalyzer } from '../core/analyzer.js';
import { CheckpointError } from '../core/checkpoint.js';
import type { AnalysisReport } from '../core/report.js';
import { UsageError } from '../errors.js';
import { parseHeads, remoteArgv } from '../sources/ssh/remote.js';
import type { SshSession } from '../sources/ssh/session.js';
import { recordFromReport } from '../store/record.js';
import type { LogKey } from '../store/types.js';
import { HEAD_LEN, type LedgerLike, SAVE_EVERY } from './ingest.js';

export interface RemoteIngestResult {
  report: AnalysisReport;
  analyzer: LogAnalyzer;
  size: number;
  mtimeMs: number | null;
  /** Bytes of the log that crossed the wire this time. */
  bytesRead: number;
  resumedFrom: number;
  reset: boolean;
  /** Why the saved state could not be used although the file was the same (damaged), or null. */
  damaged: string | null;
}

/** Chunks reach the core in batches this large (as analyzeStream does), cut at a newline. */
const BATCH = 4 << 20;

export async function ingestRemote(
  ledger: LedgerLike | null,
  session: SshSession,
  key: LogKey,
  opts: AnalyzerOptions,
  now = Date.now() / 1000,
): Promise<RemoteIngestResult> {
  const prev = ledger ? await ledger.getLog(key) : null;
  // Which file this is only matters to a ledger (resume, or save for next time): without one, no round trip.
  const lens = prev && prev.headLen > 0 && prev.checkpoint ? [prev.headLen, HEAD_LEN] : [HEAD_LEN];
  const file = ledger ? await identify(session, key.path, lens) : null;
  const headNow = file?.heads.at(-1) ?? null;
  const headLen = headNow === null ? 0 : Number(headNow.split(':')[2]);

  let a: LogAnalyzer | null = null;
  let damaged: string | null = null;
  if (
    file &&
    prev?.checkpoint &&
    prev.fileId === file.ino &&
    file.size >= prev.offset &&
    file.heads[0] === prev.headHash
  ) {
    try {
      a = LogAnalyzer.restore(prev.checkpoint, opts);
      if (a.bytes !== prev.offset || a.lineCount !== prev.lines) {
        a = null;
        damaged = 'checkpoint: its offset does not match the saved one';
      }
    } catch (err) {
      // Another version's or other options' state is expected after an upgrade; anything else is damage.
      if (!(err instanceof CheckpointError) || err.code === 'corrupt') damaged = (err as Error).message;
    }
  }
  const reset = prev !== null && a === null && prev.offset > 0;
  if (reset) await ledger!.resetLog(key);
  a ??= new LogAnalyzer(opts);
  const resumedFrom = a.bytes;
  const analyzer = a;
  // Where the last checkpoint was taken, once the unterminated last line has gone in after it.
  let boundary: number | undefined;
  let boundaryLines: number | undefined;

  // Launch identity leaves the remote inode out, as `watch` on the same target does, so both name a
  // launch alike; the inode only decides whether this read may resume.
  const save = async (report = analyzer.report(), checkpoint = analyzer.checkpoint()): Promise<void> => {
    if (!ledger || !file) return;
    // A launch starting in the unterminated tail waits for its first line to be whole (it is part of its id).
    const cut = boundary ?? analyzer.bytes;
    const records = report.launches
      .filter((l) => l.startOffset < cut)
      .map((l) => recordFromReport(l, { host: key.host, path: key.path, fileId: null, now }));
    await ledger.saveProgress(
      {
        ...key,
        fileId: file.ino,
        headHash: headNow,
        headLen,
        offset: boundary ?? analyzer.bytes,
        lines: boundaryLines ?? analyzer.lineCount,
        checkpoint,
      },
      records,
    );
  };

  const child = session.spawn(
    resumedFrom > 0 ? remoteArgv('range', key.path, resumedFrom) : remoteArgv('cat', key.path),
  );
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('error', () => resolve(-1));
    child.on('close', (code, signal) => resolve(signal ? null : code));
  });
  let bytesRead = 0;
  let held: Buffer[] = [];
  let heldLen = 0;
  let lastSave = resumedFrom;
  for await (const chunk of child.stdout as Readable) {
    const b = chunk as Buffer;
    bytesRead += b.length;
    held.push(b);
    heldLen += b.length;
    if (heldLen < BATCH) continue;
    const all = Buffer.concat(held, heldLen);
    // Only whole lines go in: the checkpoint must fall between two lines.
    const nl = all.lastIndexOf(10);
    if (nl < 0) {
      held = [all];
      continue;
    }
    analyzer.push(all.subarray(0, nl + 1));
    held = [all.subarray(nl + 1)];
    heldLen = all.length - nl - 1;
    // A long first read saves as it goes: killed, the next one resumes from here.
    if (analyzer.bytes - lastSave >= SAVE_EVERY) {
      await save();
      lastSave = analyzer.bytes;
    }
  }
  const code = await exited;
  if (code === -1)
    throw new UsageError(`${session.label}:${key.path}: cannot run the ssh client (is OpenSSH installed?)`);
  const err = session.classify({ code, stderr }, key.path);
  if (err) throw new UsageError(err.message);
  const rest = Buffer.concat(held, heldLen);
  const nl = rest.lastIndexOf(10);
  if (nl >= 0) analyzer.push(rest.subarray(0, nl + 1));
  const checkpoint = ledger ? analyzer.checkpoint() : null;
  boundary = analyzer.bytes;
  boundaryLines = analyzer.lineCount;
  if (nl + 1 < rest.length) analyzer.push(rest.subarray(nl + 1));
  const report = analyzer.end();
  if (checkpoint) await save(report, checkpoint);
  // The remote stat's mtime, taken just before the read: the age `status` judges silence by.
  const mtimeMs = file && file.mtime !== null ? file.mtime * 1000 : null;
  return { report, analyzer, size: resumedFrom + bytesRead, mtimeMs, bytesRead, resumedFrom, reset, damaged };
}

/** The remote file's inode and size, and the cksum of its first N bytes for each N in `lens`. */
async function identify(session: SshSession, path: string, lens: number[]) {
  const probe = await session.run(remoteArgv('head', path, 0, lens), 30_000, 'log');
  const failed = session.classify(probe, path);
  if (failed) throw new UsageError(failed.message);
  const file = parseHeads(probe.stdout.toString('utf8'));
  if (!file || file.heads.length !== lens.length)
    throw new UsageError(`${session.label}:${path}: unexpected answer from the remote stat/cksum`);
  return file;
}
