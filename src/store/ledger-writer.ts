/**
 * Worker thread: writes launches into a SQLite ledger for the thread that reads the log (see bulk-writer.ts).
 * Each batch of records is answered, in order, once committed or refused (a LedgerError's code and message,
 * rebuilt on the other side); launches staged before it are written in its transaction.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Ledger } from './ledger.js';
import type { LaunchWrite } from './record.js';
import { LedgerError } from './types.js';

const ledger = Ledger.open((workerData as { file: string }).file);
ledger.forBulkWrites();
/** Launches given ahead of their batch (BulkWriter.stage), written with it. */
let staged: LaunchWrite[] = [];
parentPort!.on('message', (m: { stage?: LaunchWrite[]; batch?: LaunchWrite[] } | null) => {
  if (m === null) {
    ledger.close();
    parentPort!.close();
    return;
  }
  if (m.stage) {
    for (const w of m.stage) staged.push(w);
    return;
  }
  const ws = staged.length ? [...staged, ...m.batch!] : m.batch!;
  staged = [];
  try {
    ledger.upsertWrites(ws);
    parentPort!.postMessage({ ok: true });
  } catch (e) {
    if (!(e instanceof LedgerError)) throw e;
    parentPort!.postMessage({ ok: false, code: e.code, message: e.message });
  }
});
