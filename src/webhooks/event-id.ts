import { RequestValidationError } from '../core/errors/errors.ts';

// UUIDs are case-insensitive (RFC 9562): the listener accepts either case; the sender sends lower case.
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * Whether `value` is a UUID v4 in either case: an event ID the listener accepts.
 *
 * @group Webhooks
 */
export function isUuidV4(value: unknown): value is string {
  return typeof value === 'string' && UUID_V4.test(value);
}

/**
 * Whether `value` is a lower-case UUID v4, the form the sender sends.
 *
 * @group Webhooks
 */
export function isEventId(value: unknown): value is string {
  return isUuidV4(value) && value === value.toLowerCase();
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
  if (!isEventId(eventId)) {
    const hint = isUuidV4(eventId) ? ' in lower case' : ' such as crypto.randomUUID() returns';
    throw new RequestValidationError(`eventId must be a UUID v4${hint} (got "${eventId}").`, 'eventId');
  }
  return eventId;
}
