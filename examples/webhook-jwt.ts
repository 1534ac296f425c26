/**
 * Trigger an automation through a JWT listener: generate a key pair, host its JWKS, sign with ES256.
 *
 *   node --import ./scripts/from-source.ts examples/webhook-jwt.ts
 */
import { generateWebhookKeyPair, WebhookSender } from '@idgov/sdk/webhooks';
import { type ExampleEnvironment, runIfMain } from './support/environment.ts';

export async function sendWithJwt({ fake }: ExampleEnvironment): Promise<void> {
  if (!fake) {
    console.log('JWT webhook skipped against a real tenant: its JWKS URL must host your public key.');
    return;
  }
  // The administrator hosts pair.jwks at the listener's JWKS URL; the partner keeps the private key.
  const pair = await generateWebhookKeyPair('ES256');
  const listener = fake.addListener({ id: 'jwt-listener', jwks: pair.jwks });
  const sender = new WebhookSender({
    url: listener.url,
    jwt: { privateKey: pair.privateKey, kid: pair.kid },
  });
  const result = await sender.send({ ticket: 'OPS-42', action: 'revoke' });
  console.log(`JWT webhook ${result.eventId}: ${result.status} (ES256, kid ${pair.kid.slice(0, 8)}...)`);
}

await runIfMain(import.meta.url, sendWithJwt);
