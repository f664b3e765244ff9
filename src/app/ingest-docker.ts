/**
 * `status`/`runs` on a container (`docker://NAME`): its log through `docker logs --timestamps`, continued from the
 * ledger's cursor (`--since` the last stamp read: only what was written since crosses to firedup and is read), and
 * the container's own state from `docker inspect`. The log's identity is the container's id: a container removed
 * and recreated under the same name is a new log, read afresh; a restart of the same container continues its log.
 */

import type { EarlierLaunches } from '../core/campaign/records.js';
import { type AnalyzerOptions, LogAnalyzer } from '../core/reading/analyzer.js';
import { CheckpointError } from '../core/reading/checkpoint.js';
import type { AnalysisReport, LaunchReport } from '../core/reading/report.js';
import type { ContainerObservation } from '../core/verdict/container.js';
import { classifyDocker, spawnDocker } from '../sources/docker/cli.js';
import { probeContainer } from '../sources/docker/inspect.js';
import {
  cursorText,
  type DockerCursor,
  DockerLogMerge,
  logsArgs,
  parseCursor,
  stampSeconds,
} from '../sources/docker/logs.js';
import { type DockerTarget, describeDocker } from '../sources/docker/target.js';
import { recordFromReport } from '../store/record.js';
import type { LaunchRecord, LogKey } from '../store/types.js';
import type { IngestOptions } from './ingest.js';
import { type LedgerLike, LedgerRead } from './ledger-read.js';

export interface DockerIngestResult {
  report: AnalysisReport;
  earlier: EarlierLaunches | null;
  analyzer: LogAnalyzer;
  /** Bytes of the peeled log read so far (this read and the ones it continues). */
  size: number;
  /** When the last line was written, from its docker stamp: the silence clock's arrival. */
  mtimeMs: number | null;
  /** Bytes of peeled log this read took in. */
  bytesRead: number;
  resumedFrom: number;
  reset: boolean;
  damaged: string | null;
  container: ContainerObservation;
}

/** Where a container's log is kept in the ledger: the daemon's host, and the target as written. */
export function dockerLogKey(t: DockerTarget): LogKey {
  return { host: t.host ?? 'localhost', path: describeDocker({ ...t, host: null }) };
}

export async function ingestDocker(
  ledger: LedgerLike | null,
  t: DockerTarget,
  opts: AnalyzerOptions & Pick<IngestOptions, 'onSettled'>,
  now = Date.now() / 1000,
): Promise<DockerIngestResult> {
  const { onSettled, ...aopts } = opts;
  // First: does it exist, and which container is it (its id is the log's identity)?
  const container = await probeContainer(t);
  const key = dockerLogKey(t);
  const fileId = `docker:${container.id}`;
  const prev = ledger ? await ledger.getLog(key) : null;
  const read = new LedgerRead(ledger, key, fileId);
  try {
    let a: LogAnalyzer | null = null;
    let damaged: string | null = null;
    const from = parseCursor(prev?.tailHash);
    if (prev?.checkpoint && prev.fileId === fileId && from) {
      try {
        a = LogAnalyzer.restore(prev.checkpoint, aopts);
        if (a.bytes !== prev.offset || a.lineCount !== prev.lines) {
          a = null;
          damaged = 'checkpoint: its offset does not match the saved one';
        }
      } catch (err) {
        if (!(err instanceof CheckpointError) || err.code === 'corrupt') damaged = (err as Error).message;
      }
    }
    a = await read.resume(a);
    const reset = prev !== null && a === null && (prev.fileId !== null || prev.offset > 0);
    if (reset) await ledger!.resetLog(key);
    const cursor0: DockerCursor | null = a ? from : null;
    a ??= new LogAnalyzer(aopts);
    const analyzer = a;
    const recordOf = (l: LaunchReport): LaunchRecord => ({
      ...recordFromReport(l, { host: key.host, path: key.path, fileId: null, now }),
      fileId,
    });
    read.start(analyzer, recordOf, onSettled);
    const resumedFrom = analyzer.bytes;

    const child = spawnDocker(t, logsArgs(t.name, cursor0, false));
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => {
      child.on('error', () => resolve(-1));
      child.on('close', (code) => resolve(code));
    });
    // The merge hands over whole lines in order; the analyzer takes them as they come (pushes are synchronous
    // within one batch, and the ledger's pace is kept by `read.push` between batches).
    let bytesRead = 0;
    const pending: Buffer[] = [];
    const merge = new DockerLogMerge(cursor0, (text) => {
      bytesRead += text.length;
      pending.push(text);
    });
    // docker's own complaints come on stderr with the container's stderr lines: the tail is kept to say why it failed.
    child.stderr!.on('data', (b: Buffer) => {
      stderr = (stderr + b.toString('utf8')).slice(-4096);
    });
    const done = merge.attach(child.stdout!, child.stderr!);
    let flushing = Promise.resolve();
    const flush = async () => {
      while (pending.length) {
        const chunk = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
        pending.length = 0;
        await read.push(analyzer, chunk);
      }
    };
    const tick = setInterval(() => {
      flushing = flushing.then(flush);
    }, 20);
    await done;
    clearInterval(tick);
    const code = await exited;
    await flushing;
    await flush();
    const err = classifyDocker(t, { code: code === -1 ? -1 : code, stdout: '', stderr });
    if (err) throw err;
    const cursor = merge.cursor;
    const boundary = analyzer.bytes;
    const lines = analyzer.lineCount;
    const unchanged = read.atLog !== null && resumedFrom === boundary && !read.unwritten;
    const checkpoint = ledger && !unchanged ? analyzer.checkpoint() : null;
    const report = analyzer.end();
    const recs = report.launches.map(recordOf);
    if (checkpoint)
      await read.save(
        {
          ...key,
          fileId,
          headHash: null,
          headLen: 0,
          tailHash: cursorText(cursor),
          offset: boundary,
          lines,
          checkpoint,
        },
        recs,
      );
    const earlier = await read.finish(analyzer);
    // The last line's own stamp says when it was written (a stopped container's log does not age by its mtime).
    const mtimeMs = cursor ? Math.min(now, stampSeconds(cursor.ts)) * 1000 : null;
    return {
      report,
      earlier,
      analyzer,
      size: boundary,
      mtimeMs,
      bytesRead,
      resumedFrom,
      reset,
      damaged,
      container,
    };
  } finally {
    await read.close();
  }
}
