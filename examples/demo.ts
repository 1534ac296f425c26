/**
 * `npm start`: the SDK end to end. Starts the fake tenant on 127.0.0.1 (or uses IDGOV_BASE_URL and
 * credentials from the environment) and runs every example against it as a user would.
 */
import { previewRules } from './finding-rules-preview.ts';
import { lookUpRule } from './rule-lookup.ts';
import { exampleEnvironment } from './support/environment.ts';
import { pageThroughTasks } from './task-paging.ts';
import { syncTasks } from './task-sync.ts';
import { sendWithHmac } from './webhook-hmac.ts';
import { sendWithJwt } from './webhook-jwt.ts';
import { outboxSurvivesCrash } from './webhook-outbox.ts';

const env = await exampleEnvironment();
console.log(
  `@idgov/sdk demo against ${env.client.baseUrl}${env.fake ? ' (the embedded fake tenant)' : ''}\n`,
);
try {
  for (const [title, run] of [
    ['Task search', pageThroughTasks],
    ['Task sync: a copy in SQLite', syncTasks],
    ['Finding rule lookup', lookUpRule],
    ['Finding rules preview', previewRules],
    ['Webhook with HMAC', sendWithHmac],
    ['Webhook with JWT', sendWithJwt],
    ['Webhook outbox surviving a crash', outboxSurvivesCrash],
  ] as const) {
    console.log(`== ${title}`);
    await run(env);
    console.log();
  }
  if (env.fake) {
    console.log(
      `The fake tenant accepted ${env.fake.deliveries.length} webhook deliveries and refused ${env.fake.stats.duplicates} duplicate${env.fake.stats.duplicates === 1 ? '' : 's'}.`,
    );
  }
} finally {
  await env.close();
}
