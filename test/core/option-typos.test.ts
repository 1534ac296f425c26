/**
 * A misspelt option in plain JavaScript is refused with the closest known name, by every component,
 * rather than ignored in silence (its default used instead).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError, IdGovClient } from '../../src/index.ts';
import { MemoryOutboxStore, WebhookOutbox } from '../../src/outbox/index.ts';
import { PostgresOutboxStore } from '../../src/outbox/postgres-store.ts';
import { SqliteOutboxStore } from '../../src/outbox/sqlite-store.ts';
import { TaskSync } from '../../src/sync/index.ts';
import { PostgresSyncStore } from '../../src/sync/postgres/store.ts';
import { SqliteSyncStore } from '../../src/sync/sqlite/store.ts';
import { WebhookSender } from '../../src/webhooks/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-typos-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const credentials = { clientId: 'c', clientSecret: 's' };
const client = () => new IdGovClient({ baseUrl: 'https://acme.example.com', credentials });
const sender = () =>
  new WebhookSender({
    url: 'https://hooks.example.com/api/v1/webhooks/incoming/demo',
    hmac: { secret: 'k'.repeat(32) },
  });

/** What `make` threw. */
function thrown(make: () => unknown): Error {
  try {
    make();
  } catch (error) {
    return error as Error;
  }
  throw new Error('nothing was thrown');
}

describe('a misspelt option is refused, naming it and the closest known one', () => {
  it.each([
    [
      'IdGovClient',
      () => new IdGovClient({ basUrl: 'https://acme.example.com', credentials } as never),
      'basUrl',
      'baseUrl',
    ],
    [
      'WebhookSender',
      () =>
        new WebhookSender({
          url: 'https://h.example.com',
          hmac: { secret: 'k'.repeat(32) },
          timout: 5,
        } as never),
      'timout',
      'timeout',
    ],
    [
      'WebhookOutbox',
      () => new WebhookOutbox({ sender: sender(), store: new MemoryOutboxStore(), concurency: 8 } as never),
      'concurency',
      'concurrency',
    ],
    [
      'TaskSync',
      () =>
        new TaskSync({
          client: client(),
          store: new SqliteSyncStore({ path: join(dir, 'a.db') }),
          concurency: 8,
        } as never),
      'concurency',
      'concurrency',
    ],
    [
      'SqliteSyncStore',
      () => new SqliteSyncStore({ path: join(dir, 'b.db'), readonly: true } as never),
      'readonly',
      'readOnly',
    ],
    [
      'SqliteOutboxStore',
      () => new SqliteOutboxStore({ path: join(dir, 'c.db'), busyTimeout: 10 } as never),
      'busyTimeout',
      'busyTimeoutMs',
    ],
    [
      'PostgresSyncStore',
      () => new PostgresSyncStore({ connectionString: 'postgres://x@127.0.0.1/x', tabel: 'x' } as never),
      'tabel',
      'table',
    ],
    [
      'PostgresOutboxStore',
      () =>
        new PostgresOutboxStore({ connectionString: 'postgres://x@127.0.0.1/x', maxConnection: 2 } as never),
      'maxConnection',
      'maxConnections',
    ],
  ])('%s', (what, make, typo, meant) => {
    const error = thrown(make);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toContain(`${what} has no option "${typo}": did you mean ${meant}?`);
  });

  it('a task search, as it rejects a wrong request field: before anything is sent', async () => {
    const search = client().tasks.search({}, { prefech: true } as never);
    const error = await search.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error?.message).toContain('A task search has no option "prefech": did you mean prefetch?');
  });

  it('options spelt right pass', () => {
    expect(
      () => new IdGovClient({ baseUrl: 'https://acme.example.com', credentials, maxRetries: 1 }),
    ).not.toThrow();
    expect(
      () => new WebhookOutbox({ sender: sender(), store: new MemoryOutboxStore(), concurrency: 2 }),
    ).not.toThrow();
  });
});
