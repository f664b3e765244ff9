/**
 * Worker thread: writes launches into a SQLite ledger for the thread that reads the log (see bulk-writer.ts).
 * Each batch of records is answered, in order, once committed or refused (a LedgerError's code and message,
 * rebuilt on the other side); launches staged before it are written as they come, in its transaction.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Ledger } from './ledger.js';
import type { LaunchWrite } from './record.js';
import { LedgerError } from './types.js';

const ledger = Ledger.open((workerData as { file: string }).file);
ledger.forBulkWrites();
/** The first failure of the batch being written: its parts after it are not written, the batch is refused. */
let failed: LedgerError | null = null;

/** Runs a step of the batch unless one failed; a failure drops what the batch's transaction holds. */
function step(run: () => void): void {
  if (failed !== null) return;
  try {
    run();
  } catch (e) {
    if (!(e instanceof LedgerError)) throw e;
    failed = e;
    ledger.rollbackWrites();
  }
}

parentPort!.on('message', (m: { stage?: LaunchWrite[]; batch?: LaunchWrite[] } | null) => {
  if (m === null) {
    ledger.close();
    parentPort!.close();
    return;
  }
  // Launches staged ahead of their batch (BulkWriter.stage) are written at once, in the batch's transaction.
  step(() => ledger.writeOpen(m.stage ?? m.batch!));
  if (m.stage) return;
  step(() => ledger.commitWrites());
  if (failed === null) parentPort!.postMessage({ ok: true });
  else parentPort!.postMessage({ ok: false, code: failed.code, message: failed.message });
  failed = null;
});
