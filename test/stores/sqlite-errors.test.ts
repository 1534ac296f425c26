/**
 * What a SQLite store says when its file fails it: the disk full, a file it cannot open or write,
 * or one that is no database, each naming the file and what to do.
 */
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, StoreError } from '../../src/index.ts';
import { explainedSqliteError } from '../../src/stores/sqlite-errors.ts';

/** The error node:sqlite throws for a write past a database's last page (SQLITE_FULL, as a full disk). */
function fullDatabaseError(): unknown {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE t (x)');
  db.exec('PRAGMA max_page_count = 3');
  try {
    db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(100_000));
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
  throw new Error('the insert fitted');
}

describe('SQLite failures as the SDK says them', () => {
  it('a full disk names the file, says to free space, and that what was committed is kept', () => {
    const error = explainedSqliteError(fullDatabaseError(), '/var/lib/idgov/outbox.db', 'outbox') as Error;
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).transient).toBe(false);
    expect(error.message).toMatch(
      /^@idgov\/sdk: SQLite could not write the outbox file \/var\/lib\/idgov\/outbox\.db: database or disk is full\. Free space on its disk .*what was committed is kept\.$/,
    );
  });

  it('a file that is no database, or one it cannot open, is the setup to fix', () => {
    const notDb = Object.assign(new Error('file is not a database'), { errcode: 26 });
    const cannotOpen = Object.assign(new Error('unable to open database file'), { errcode: 14 });
    expect(explainedSqliteError(notDb, 'x.db', 'task copy')).toBeInstanceOf(ConfigurationError);
    expect((explainedSqliteError(cannotOpen, 'x.db', 'task copy') as Error).message).toMatch(
      /Cannot open the task copy file x\.db .*check that its directory exists/,
    );
  });
});
