import { RequestValidationError } from '../core/errors.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * Whether `value` is a lower-case UUID v4, the only event ID form the listener accepts.
 *
 * @group Webhooks
 */
export function isEventId(value: unknown): value is string {
  return typeof value === 'string' && UUID_V4.test(value);
}

/**
 * A new event ID: a lower-case UUID v4 from the platform's CSPRNG.
 *
 * @group Webhooks
 */
export function newEventId(): string {
  return crypto.randomUUID();
}

/**
 * Checks a caller-chosen event ID, or makes one.
 *
 * @group Webhooks
 */
export function eventIdOrNew(eventId: string | undefined): string {
  if (eventId === undefined) return newEventId();
  if (!UUID_V4.test(eventId)) {
    const hint = UUID_V4.test(eventId.toLowerCase())
      ? ' in lower case'
      : ' such as crypto.randomUUID() returns';
    throw new RequestValidationError(`eventId must be a UUID v4${hint} (got "${eventId}").`, 'eventId');
  }
  return eventId;
}
