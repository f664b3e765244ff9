/**
 * `status`/`runs` on a log on another machine, continued from where the ledger left it: one short command
 * checks the file is the same one (inode, and the POSIX cksum of its head), then only the bytes after the
 * stored offset cross the wire (`tail -c +N`). The seeds re-read the whole log on the server at every poll.
 * As for a local log (ingest.ts), the launches that closed are written as they close and let go (ledger-read.ts):
 * the report holds the launches still open, and `earlier` reads the others back from the ledger when asked.
 */
import type { Readable } from 'node:stream';
import type { EarlierLaunches } from '../core/campaign/records.js';
import { type AnalyzerOptions, LogAnalyzer } from '../core/reading/analyzer.js';
import { CheckpointError } from '../core/reading/checkpoint.js';
import type { AnalysisReport, LaunchReport } from '../core/reading/report.js';
import { UsageError } from '../errors.js';
import { parseHeads, remoteArgv } from '../sources/ssh/remote.js';
import type { SshSession } from '../sources/ssh/session.js';
import { recordFromReport } from '../store/record.js';
import type { LaunchRecord, LogKey } from '../store/types.js';
import { HEAD_LEN, type IngestOptions, SAVE_EVERY } from './ingest.js';
import { type LedgerLike, LedgerRead } from './ledger-read.js';

export interface RemoteIngestResult {
  /** Every launch of the log but those in `earlier` (and those handed to `onSettled`), which come before. */
  report: AnalysisReport;
  /** The launches let go into the ledger (closed ones), or null. */
  earlier: EarlierLaunches | null;
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
  opts: AnalyzerOptions & Pick<IngestOptions, 'onSettled' | 'saveEvery'>,
  now = Date.now() / 1000,
): Promise<RemoteIngestResult> {
  const { onSettled, saveEvery, ...aopts } = opts;
  const prev = ledger ? await ledger.getLog(key) : null;
  // Which file this is only matters to a ledger (resume, or save for next time): without one, no round trip.
  const lens = prev && prev.headLen > 0 && prev.checkpoint ? [prev.headLen, HEAD_LEN] : [HEAD_LEN];
  const file = ledger ? await identify(session, key.path, lens) : null;
  const headNow = file?.heads.at(-1) ?? null;
  const headLen = headNow === null ? 0 : Number(headNow.split(':')[2]);

  // Launch identity leaves the remote inode out, as `watch` on the same target does, so both name a launch
  // alike; the inode only decides whether this read may resume. The places a read records (launch_paths) carry
  // it, though: they are what finds the launches the checkpoint let go (launchesAtLog), and `resetLog` clears
  // it from those of a file rotated or truncated away, which must not be counted with the new file's.
  const fileId = file?.ino ?? null;
  const read = new LedgerRead(ledger, key, fileId);
  try {
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
        a = LogAnalyzer.restore(prev.checkpoint, aopts);
        if (a.bytes !== prev.offset || a.lineCount !== prev.lines) {
          a = null;
          damaged = 'checkpoint: its offset does not match the saved one';
        }
      } catch (err) {
        // Another version's or other options' state is expected after an upgrade; anything else is damage.
        if (!(err instanceof CheckpointError) || err.code === 'corrupt') damaged = (err as Error).message;
      }
    }
    a = await read.resume(a);
    const reset = prev !== null && a === null && (prev.fileId !== null || prev.offset > 0);
    if (reset) await ledger!.resetLog(key);
    a ??= new LogAnalyzer(aopts);
    const analyzer = a;
    const recordOf = (l: LaunchReport): LaunchRecord => ({
      ...recordFromReport(l, { host: key.host, path: key.path, fileId: null, now }),
      fileId,
    });
    read.start(analyzer, recordOf, onSettled);
    const resumedFrom = analyzer.bytes;

    // Only whole lines go in before a checkpoint: it must fall between two lines.
    const save = (offset: number, lines: number, checkpoint: Uint8Array, recs: LaunchRecord[]) =>
      read.save({ ...key, fileId, headHash: headNow, headLen, offset, lines, checkpoint }, recs);

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
    const every = ledger ? (saveEvery ?? SAVE_EVERY) : Number.POSITIVE_INFINITY;
    for await (const chunk of child.stdout as Readable) {
      const b = chunk as Buffer;
      bytesRead += b.length;
      held.push(b);
      heldLen += b.length;
      if (heldLen < BATCH && analyzer.bytes + heldLen - lastSave < every) continue;
      const all = Buffer.concat(held, heldLen);
      const nl = all.lastIndexOf(10);
      if (nl < 0) {
        held = [all];
        continue;
      }
      held = [all.subarray(nl + 1)];
      heldLen = all.length - nl - 1;
      await read.push(analyzer, all.subarray(0, nl + 1));
      // A long first read saves as it goes: killed, the next one resumes from here.
      if (analyzer.bytes - lastSave >= every) {
        const open = analyzer.report().launches.map(recordOf);
        void save(analyzer.bytes, analyzer.lineCount, analyzer.checkpoint(), open);
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
    if (nl >= 0) await read.push(analyzer, rest.subarray(0, nl + 1));
    // Where the checkpoint is taken, before the unterminated last line goes in.
    const boundary = analyzer.bytes;
    const lines = analyzer.lineCount;
    const size = resumedFrom + bytesRead;
    // Nothing new since the saved state, which holds all this read knows: nothing to write.
    const unchanged =
      read.atLog !== null &&
      resumedFrom === boundary &&
      size === boundary &&
      prev?.headHash === headNow &&
      !read.unwritten;
    const checkpoint = ledger && file && !unchanged ? analyzer.checkpoint() : null;
    if (nl + 1 < rest.length) await read.push(analyzer, rest.subarray(nl + 1));
    const report = analyzer.end();
    // A launch starting in the unterminated tail waits for its first line to be whole (it is part of its id).
    const recs = report.launches.filter((l) => l.startOffset < boundary).map(recordOf);
    if (checkpoint) await save(boundary, lines, checkpoint, recs);
    const earlier = await read.finish(analyzer);
    // The remote stat's mtime, taken just before the read: the age `status` judges silence by.
    const mtimeMs = file && file.mtime !== null ? file.mtime * 1000 : null;
    return { report, earlier, analyzer, size, mtimeMs, bytesRead, resumedFrom, reset, damaged };
  } finally {
    await read.close();
  }
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
