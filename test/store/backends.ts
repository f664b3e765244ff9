/**
 * The ledger's two stores for tests that must hold for both: a fresh SQLite file, or a fresh database on one
 * throwaway Postgres server per test process (started on first use, stopped by `stopBackends`, and at exit).
 */
import path from 'node:path';
import type { LedgerStore } from '../../src/store/ledger-store.js';
import { openLedger } from '../../src/store/open.js';
import { tmpDir } from '../helpers.js';
import { startPostgres, type TestPostgres } from '../postgres.js';

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** Where a new, empty ledger is (a file path or a database URL); each call gives another. */
  fresh(): string;
  /** A new, empty ledger, open. */
  open(): Promise<LedgerStore>;
}

let server: TestPostgres | null = null;

export function testPostgres(): TestPostgres {
  server ??= startPostgres();
  return server;
}

export function stopBackends(): void {
  server?.stop();
  server = null;
}

const sqlite: Backend = {
  name: 'sqlite',
  fresh: () => path.join(tmpDir(), 'ledger.db'),
  open() {
    return openLedger(this.fresh());
  },
};

const postgres: Backend = {
  name: 'postgres',
  fresh: () => testPostgres().createDatabase(),
  open() {
    return openLedger(this.fresh());
  },
};

export const BACKENDS: readonly Backend[] = [sqlite, postgres];
