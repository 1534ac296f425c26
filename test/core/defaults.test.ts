/**
 * Every number an option's documentation calls its default is the one applied: each component
 * merges its defaults in one place (`resolve...Options`), and this reads both the TSDoc of the
 * option and what that place gives, so neither can change alone.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveClientOptions } from '../../src/client-options.ts';
import { DEFAULT_RETRY_SCHEDULE_MS, MemoryOutboxStore } from '../../src/outbox/index.ts';
import { resolveOutboxOptions } from '../../src/outbox/options.ts';
import { WebhookSender } from '../../src/webhooks/index.ts';
import { resolveSenderOptions } from '../../src/webhooks/sender-options.ts';

/** The TSDoc of `option` in `file`: the comment right before its declaration. */
function documentation(file: string, option: string): string {
  const source = readFileSync(new URL(`../../src/${file}`, import.meta.url), 'utf8');
  const at = source.indexOf(`readonly ${option}?:`);
  expect(at, `${option} is declared in ${file}`).toBeGreaterThan(0);
  const start = source.lastIndexOf('/**', at);
  return source.slice(start, at).replace(/\s*\n\s*\*\s*/g, ' ');
}

/** The number a documentation gives as the default, written as `Default 30 000` or `Default 65,536`. */
function documentedDefault(doc: string): number {
  const text = /Default:? (\d[\d ,]*\d|\d)/.exec(doc)?.[1];
  expect(text, `a default in: ${doc}`).toBeDefined();
  return Number(text?.replace(/[ ,]/g, ''));
}

const client = resolveClientOptions({ baseUrl: 'https://acme.example.com', credentials: { token: 't' } });
const sender = resolveSenderOptions({
  url: 'https://acme.example.com/api/v1/webhooks/incoming/l1',
  hmac: { secret: 's' },
});
const outbox = resolveOutboxOptions({
  sender: new WebhookSender({
    url: 'https://acme.example.com/api/v1/webhooks/incoming/l1',
    hmac: { secret: 's' },
  }),
  store: new MemoryOutboxStore(),
});

describe('documented defaults are the applied ones', () => {
  it.each([
    ['core/transport/transport-options.ts', 'timeout', client.transport.timeout],
    ['core/transport/transport-options.ts', 'maxResponseBytes', client.transport.maxResponseBytes],
    ['client-options.ts', 'maxEmptyPages', client.maxEmptyPages],
    ['webhooks/sender-options.ts', 'maxBodyBytes', sender.maxBodyBytes],
    ['outbox/options.ts', 'concurrency', outbox.concurrency],
    ['outbox/options.ts', 'attemptTimeoutMs', outbox.attemptTimeoutMs],
    ['outbox/options.ts', 'pollIntervalMs', outbox.pollIntervalMs],
  ] as const)('%s: %s', (file, option, applied) => {
    expect(applied).toBe(documentedDefault(documentation(file, option)));
  });

  it('maxRetries: 2 for a client, 3 for a sender, as documented', () => {
    expect(documentation('core/transport/transport-options.ts', 'maxRetries')).toContain(
      'Default 2 (client), 3 (webhook sender)',
    );
    expect([client.transport.maxRetries, sender.transport.maxRetries]).toEqual([2, 3]);
  });

  it('the outbox lease: 15 seconds', () => {
    expect(documentation('outbox/options.ts', 'leaseMs')).toContain('Default 15 seconds');
    expect(outbox.leaseMs).toBe(15_000);
  });

  it('the outbox retry schedule: 10 s, 30 s, 1 min, 5 min, 15 min, 1 h, 2 h, then 6 h', () => {
    expect(documentation('outbox/options.ts', 'retrySchedule')).toContain(
      'Default 10 s, 30 s, 1 min, 5 min, 15 min, 1 h, 2 h, then every 6 h',
    );
    const [s, m, h] = [1_000, 60_000, 3_600_000];
    expect(outbox.retrySchedule).toEqual([10 * s, 30 * s, m, 5 * m, 15 * m, h, 2 * h, 6 * h]);
    expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual(outbox.retrySchedule);
  });

  it('logLevel: IDGOV_LOG, else warn, for the client and the outbox alike', () => {
    for (const file of ['core/transport/transport-options.ts', 'outbox/options.ts']) {
      expect(documentation(file, 'logLevel')).toContain('Default: `IDGOV_LOG`, else `warn`');
    }
    const seen: string[] = [];
    const sink = {
      error: () => seen.push('error'),
      warn: () => seen.push('warn'),
      info: () => seen.push('info'),
      debug: () => seen.push('debug'),
    };
    const previous = process.env.IDGOV_LOG;
    delete process.env.IDGOV_LOG;
    try {
      for (const resolved of [
        resolveClientOptions({ baseUrl: 'https://a.example.com', credentials: { token: 't' }, logger: sink })
          .transport.logger,
        resolveOutboxOptions({
          sender: new WebhookSender({
            url: 'https://a.example.com/api/v1/webhooks/incoming/l',
            hmac: { secret: 's' },
          }),
          store: new MemoryOutboxStore(),
          logger: sink,
        }).logger,
      ]) {
        resolved.info('no');
        resolved.warn('yes');
      }
    } finally {
      if (previous !== undefined) process.env.IDGOV_LOG = previous;
    }
    expect(seen).toEqual(['warn', 'warn']);
  });
});
