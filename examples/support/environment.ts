/**
 * Where the examples run: against a real tenant when IDGOV_BASE_URL is set, otherwise against the
 * testing kit's fake tenant, started on 127.0.0.1 for the run.
 */
import { IdGovClient } from '@idgov/sdk';
import { FakeTenant, fakeRule } from '@idgov/sdk/testing';

/** What an example needs. */
export interface ExampleEnvironment {
  /** A client for the tenant. */
  readonly client: IdGovClient;
  /** A rule ID that exists there. */
  readonly ruleId: string | undefined;
  /** An HMAC listener, if one is configured. */
  readonly hmacListener: { url: string; secret: string } | undefined;
  /** The fake tenant, when the examples run against it (for JWT listeners and counters). */
  readonly fake: FakeTenant | undefined;
  /** Stops the fake tenant. */
  close(): Promise<void>;
}

export async function exampleEnvironment(): Promise<ExampleEnvironment> {
  if (process.env.IDGOV_BASE_URL) {
    const url = process.env.IDGOV_WEBHOOK_URL;
    const secret = process.env.IDGOV_WEBHOOK_SECRET;
    return {
      client: new IdGovClient(), // reads IDGOV_BASE_URL and the credentials from the environment
      ruleId: process.env.IDGOV_RULE_ID,
      hmacListener: url && secret ? { url, secret } : undefined,
      fake: undefined,
      close: async () => {},
    };
  }
  const fake = new FakeTenant({
    tasks: 137,
    seed: 2026,
    rules: [fakeRule({ id: 'rule-raise-exposed-credentials' })],
  });
  const server = await fake.listen();
  const listener = fake.addListener({ id: 'hr-offboarding' });
  return {
    client: new IdGovClient({ baseUrl: server.url, credentials: fake.client }),
    ruleId: 'rule-raise-exposed-credentials',
    hmacListener: { url: listener.url, secret: listener.secret ?? '' },
    fake,
    close: server.close,
  };
}

/** Runs `main` when the file is executed directly (not imported by the demo). */
export async function runIfMain(
  url: string,
  main: (env: ExampleEnvironment) => Promise<void>,
): Promise<void> {
  if (process.argv[1] && new URL(url).pathname !== process.argv[1]) return;
  const env = await exampleEnvironment();
  try {
    await main(env);
  } finally {
    await env.close();
  }
}
