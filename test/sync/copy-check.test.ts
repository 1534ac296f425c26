/**
 * What a reader of a SQLite copy (`idgov status`, `export`, `changes`) is told when the file cannot
 * be read: "no task copy" only when the file holds none; a read-only mount and a disk I/O error are
 * said as what they are, not as a copy to make.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError, StoreError } from '../../src/index.ts';
import { SqliteFile } from '../../src/stores/sqlite-file.ts';
import { checkCopy } from '../../src/sync/sqlite/read.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-copy-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** The error `checkCopy` throws for a file whose first read fails with SQLite's `errcode` and `message`. */
function checked(failure?: { errcode: number; message: string }): unknown {
  const path = join(dir, `copy-${++n}.db`);
  writeFileSync(path, '');
  const file = new SqliteFile({ path, readOnly: true, holds: 'task copy', schema: '' });
  if (failure) {
    // What node:sqlite throws: an Error with SQLite's extended result code.
    file.sql = () => {
      throw Object.assign(new Error(failure.message), { code: 'ERR_SQLITE_ERROR', errcode: failure.errcode });
    };
  }
  try {
    checkCopy(file);
  } catch (error) {
    return error;
  }
  throw new Error('checkCopy accepted the file');
}

describe('a SQLite copy a reader cannot read', () => {
  it('a database without the copy\'s tables is "no task copy", with the command that makes one', () => {
    const error = checked() as Error;
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(
      /is a SQLite file but no task copy \(no such table: idgov_tasks\).*idgov sync --db/,
    );
  });

  it('a database holding other tables (an outbox) is named as such, never with the advice to sync into it', () => {
    const path = join(dir, `outbox-${++n}.db`);
    const db = new DatabaseSync(path);
    db.exec('CREATE TABLE idgov_webhook_outbox (seq INTEGER PRIMARY KEY)');
    db.close();
    const file = new SqliteFile({ path, readOnly: true, holds: 'task copy', schema: '' });
    let error: unknown;
    try {
      checkCopy(file);
    } catch (caught) {
      error = caught;
    }
    file.close();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(
      /no task copy .*it holds other tables \(idgov_webhook_outbox\): check the path\./,
    );
    expect((error as Error).message).not.toMatch(/idgov sync/);
  });

  it('a file on a read-only mount (SQLITE_CANTOPEN for its -shm) says it cannot be read from here, and why', () => {
    const error = checked({ errcode: 14, message: 'unable to open database file' }) as Error;
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(/cannot be read from here .*\(its permissions, or a read-only mount\)/);
    expect(error.message).not.toMatch(/no task copy/);
  });

  it('a disk I/O error is said as one, not as a copy to make', () => {
    const error = checked({ errcode: 10 | (2 << 8), message: 'disk I/O error' }) as Error;
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toMatch(/disk I\/O error/);
    expect(error.message).not.toMatch(/no task copy|idgov sync --db/);
  });
});
