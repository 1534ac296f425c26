/**
 * Trigger an automation through an HMAC listener, and see that a resent event is not run twice.
 *
 *   IDGOV_WEBHOOK_URL=... IDGOV_WEBHOOK_SECRET=... node --import ./scripts/from-source.ts examples/webhook-hmac.ts
 */
import { WebhookSender } from '@idgov/sdk/webhooks';
import { type ExampleEnvironment, runIfMain } from './support/environment.ts';

export async function sendWithHmac({ hmacListener }: ExampleEnvironment): Promise<void> {
  if (!hmacListener) {
    console.log('HMAC webhook skipped: set IDGOV_WEBHOOK_URL and IDGOV_WEBHOOK_SECRET.');
    return;
  }
  const sender = new WebhookSender({ url: hmacListener.url, hmac: { secret: hmacListener.secret } });
  const first = await sender.send({ employee_id: '12345', status: 'terminated' });
  console.log(`HMAC webhook ${first.eventId}: ${first.status} after ${first.attempts} attempt(s)`);

  // Resending with the same event ID is safe: the listener answers 409 and the automation does not run again.
  const again = await sender.send({ employee_id: '12345', status: 'terminated' }, { eventId: first.eventId });
  console.log(`Same event sent again: ${again.status} (HTTP ${again.httpStatus}), not run twice`);
}

await runIfMain(import.meta.url, sendWithHmac);
