/**
 * Worker thread: writes launches into a SQLite ledger for the thread that reads the log (see bulk-writer.ts).
 * Each message is a batch of records, answered, in order, once committed or refused (a LedgerError's code and
 * message, rebuilt on the other side).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Ledger } from './ledger.js';
import type { LaunchWrite } from './record.js';
import { LedgerError } from './types.js';

const ledger = Ledger.open((workerData as { file: string }).file);
ledger.forBulkWrites();
parentPort!.on('message', (ws: LaunchWrite[] | null) => {
  if (ws === null) {
    ledger.close();
    parentPort!.close();
    return;
  }
  try {
    ledger.upsertWrites(ws);
    parentPort!.postMessage({ ok: true });
  } catch (e) {
    if (!(e instanceof LedgerError)) throw e;
    parentPort!.postMessage({ ok: false, code: e.code, message: e.message });
  }
});
