import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Ledger } from '../../src/store/ledger.js';
import { APPLICATION_ID, SCHEMA_VERSION } from '../../src/store/migrations.js';
import { LedgerError, type LedgerErrorCode } from '../../src/store/types.js';
import { tmpDir } from '../helpers.js';

function refused(file: string): LedgerError {
  try {
    Ledger.open(file).close();
  } catch (e) {
    assert.ok(e instanceof LedgerError, `expected a LedgerError, got ${(e as Error).stack}`);
    assert.doesNotMatch(e.message, /\n/, 'one line');
    return e;
  }
  assert.fail(`opening ${file} should have failed`);
}

/** The refusal must leave the file exactly as it was, with nothing created beside it. */
function refusedUntouched(file: string, want: LedgerErrorCode): LedgerError {
  const before = fs.readFileSync(file);
  const siblings = fs.readdirSync(path.dirname(file)).sort();
  const e = refused(file);
  assert.equal(e.code, want, e.message);
  assert.ok(e.message.includes(file), `names the file: ${e.message}`);
  assert.deepEqual(fs.readFileSync(file), before, 'bytes unchanged');
  assert.deepEqual(fs.readdirSync(path.dirname(file)).sort(), siblings, 'no -wal, -shm or -journal');
  return e;
}

function foreignDb(file: string, setup: (db: Database.Database) => void): string {
  const db = new Database(file);
  setup(db);
  db.close();
  return file;
}

describe('ledger: refusing files that are not a ledger', () => {
  it('a text file is corrupt, and the message says what to do', () => {
    const file = path.join(tmpDir(), 'ledger.db');
    fs.writeFileSync(file, 'model_path=/models/glm5\nthis is not a database\n');
    const e = refusedUntouched(file, 'corrupt');
    assert.equal(
      e.message,
      `ledger ${file} is not a SQLite database; move it aside or pass --ledger PATH (or FIREDUP_LEDGER)`,
    );
  });

  it('random bytes are corrupt, short or long, even behind the SQLite magic', () => {
    const dir = tmpDir();
    const magic = Buffer.from('SQLite format 3\0', 'latin1');
    const cases = {
      short: randomBytes(40),
      long: randomBytes(64 * 1024),
      magic: Buffer.concat([magic, Buffer.alloc(8192, 0xa5)]),
    };
    for (const [name, bytes] of Object.entries(cases)) {
      const file = path.join(dir, `${name}.db`);
      fs.writeFileSync(file, bytes);
      refusedUntouched(file, 'corrupt');
    }
  });

  it('a SQLite database of another program is foreign', () => {
    const dir = tmpDir();
    const plain = foreignDb(path.join(dir, 'plain.db'), (db) => {
      db.exec("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada')");
    });
    assert.match(refusedUntouched(plain, 'foreign').message, /users/);
    const withId = foreignDb(path.join(dir, 'app.db'), (db) => db.pragma('application_id = 0x12345678'));
    assert.match(refusedUntouched(withId, 'foreign').message, /0x12345678/);
    const wal = foreignDb(path.join(dir, 'wal.db'), (db) => {
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE t (x)');
    });
    refusedUntouched(wal, 'foreign');
    // Our id, but tables firedup never made: somebody else's, or a copy mangled by hand.
    const mixed = foreignDb(path.join(dir, 'mixed.db'), (db) => {
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.exec('CREATE TABLE photos (x)');
    });
    assert.match(refusedUntouched(mixed, 'foreign').message, /photos/);
  });

  it('a ledger from a newer firedup is too new: upgrade', () => {
    const file = path.join(tmpDir(), 'ledger.db');
    Ledger.open(file).close();
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const e = refusedUntouched(file, 'too_new');
    assert.match(e.message, /upgrade firedup/);
  });

  it('an empty SQLite database (no tables, no id) is taken', () => {
    const file = foreignDb(path.join(tmpDir(), 'blank.db'), (db) => db.exec('VACUUM'));
    Ledger.open(file).close();
    const db = new Database(file, { readonly: true });
    assert.equal(db.pragma('application_id', { simple: true }), APPLICATION_ID);
    db.close();
  });
});

describe('ledger: places it cannot write', () => {
  it('a read-only directory', (t) => {
    if (process.getuid?.() === 0) return t.skip('root ignores file modes');
    const dir = tmpDir();
    fs.chmodSync(dir, 0o500);
    t.after(() => fs.chmodSync(dir, 0o700));
    const file = path.join(dir, 'sub', 'ledger.db');
    const e = refused(file);
    assert.equal(e.code, 'unwritable');
    assert.ok(e.message.includes(file), e.message);
    const inDir = path.join(dir, 'ledger.db');
    assert.equal(refused(inDir).code, 'unwritable');
  });

  it('a read-only ledger file', (t) => {
    if (process.getuid?.() === 0) return t.skip('root ignores file modes');
    const file = path.join(tmpDir(), 'ledger.db');
    Ledger.open(file).close();
    fs.chmodSync(file, 0o400);
    assert.equal(refused(file).code, 'unwritable');
  });

  it('a path under a regular file, and a directory where the file should be', () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'x');
    const under = path.join(dir, 'notes.txt', 'ledger.db');
    const e = refused(under);
    assert.equal(e.code, 'unwritable');
    assert.ok(e.message.includes(under), e.message);
    assert.match(e.message, /--ledger PATH/);
    fs.mkdirSync(path.join(dir, 'ledger.db'));
    assert.equal(refused(path.join(dir, 'ledger.db')).code, 'unwritable');
  });
});
