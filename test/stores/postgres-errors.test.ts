/**
 * How a pg failure becomes the SDK's error: what is waited out (transient), and what says the fix.
 */
import { describe, expect, it } from 'vitest';
import { ConfigurationError, StoreError } from '../../src/index.ts';
import { postgresError } from '../../src/stores/postgres-errors.ts';

const failure = (code: string, message: string) => Object.assign(new Error(message), { code });
const asStore = (code: string, message: string) =>
  postgresError(failure(code, message), 'committing a page', 'idgov_tasks', 'postgresSyncSchema()');

describe('PostgreSQL failures', () => {
  it('a lost connection is transient, and a pooler failure; a statement the server could not take (08P01) is not', () => {
    const lost = asStore('08006', 'connection failure');
    expect(lost).toBeInstanceOf(StoreError);
    expect((lost as StoreError).transient).toBe(true);
    // PgBouncer says its own failures with the code of a protocol violation.
    expect((asStore('08P01', 'server conn crashed?') as StoreError).transient).toBe(true);
    expect((asStore('08P01', 'query_wait_timeout') as StoreError).transient).toBe(true);
    const refused = asStore(
      '08P01',
      'bind message supplies 3 parameters, but prepared statement "" requires 4',
    );
    expect(refused).toBeInstanceOf(StoreError);
    expect((refused as StoreError).transient).toBe(false);
    expect(refused.message).toContain("the error's cause holds the statement that failed");
  });

  it('a missing column says the tables are older than the SDK and how to bring them up', () => {
    const error = asStore('42703', 'column "acted_after_ms" does not exist');
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(
      /idgov_tasks lacks a column this SDK uses \(column "acted_after_ms" does not exist\).*postgresSyncSchema\(\)/,
    );
  });
});
