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

  it('a passing failure says what to look at: connections used up, a full disk, a conflict, an unreachable server', () => {
    const cases: Array<[string, string, RegExp]> = [
      [
        '53300',
        'sorry, too many clients already',
        /no connection left \(max_connections\): run fewer workers/,
      ],
      ['53100', 'could not extend file: No space left on device', /out of disk space/],
      ['53200', 'out of memory', /short of resources/],
      ['40P01', 'deadlock detected', /a concurrent transaction conflicted/],
      ['57P03', 'the database system is starting up', /unreachable or restarting/],
      [
        '57014',
        'canceling statement due to statement timeout',
        /past its statement_timeout, or was cancelled/,
      ],
      ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432', /unreachable or restarting/],
      [
        'ENOTFOUND',
        'getaddrinfo ENOTFOUND db.internl',
        /host name does not resolve: check it in the connection URL/,
      ],
    ];
    for (const [code, message, advice] of cases) {
      const error = asStore(code, message);
      expect(error, code).toBeInstanceOf(StoreError);
      expect((error as StoreError).transient, code).toBe(true);
      expect(error.message, code).toMatch(advice);
      expect(error.message, code).toMatch(
        /: it may pass \(the outbox and the sync wait a while for it to\)\.$/,
      );
    }
  });

  it('a connection URL pg cannot read, and SSL the server refuses, are the setup to fix (never showing the URL)', () => {
    const url = asStore('ERR_INVALID_URL', 'Invalid URL');
    expect(url).toBeInstanceOf(ConfigurationError);
    expect(url.message).toMatch(
      /connection URL of idgov_tasks is not one pg can read \(Invalid URL\): give it as postgres:\/\/user:password@host:5432\/database, with any special character of the password percent-encoded/,
    );
    const ssl = postgresError(
      new Error('The server does not support SSL connections'),
      'committing a page',
      'idgov_tasks',
      'postgresSyncSchema()',
    );
    expect(ssl).toBeInstanceOf(ConfigurationError);
    expect(ssl.message).toMatch(/drop sslmode=require from the connection URL, or enable SSL on the server/);
  });

  it('a missing column says the tables are older than the SDK and how to bring them up', () => {
    const error = asStore('42703', 'column "acted_after_ms" does not exist');
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(
      /idgov_tasks lacks a column this SDK uses \(column "acted_after_ms" does not exist\).*postgresSyncSchema\(\)/,
    );
  });
});
