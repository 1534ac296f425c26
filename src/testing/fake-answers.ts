/**
 * How the fake tenant answers, shared by its routes and the loopback server that serves them.
 *
 * @module
 */

/**
 * An answer, or the instruction to drop the connection without one.
 *
 * @group Testing kit
 */
export type FakeAnswer = Response | 'drop';

/** CORS headers, so that a browser test page on another origin can call the tenant. */
export const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers':
    'authorization, content-type, user-agent, webhook-timestamp, webhook-event-id, webhook-signature',
  'access-control-expose-headers': 'retry-after, x-request-id, date',
};

/** A JSON answer with the CORS headers. */
export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...CORS, ...headers },
  });

/** An error answer, `{ message }`, as the service sends them. */
export const problem = (status: number, message: string): Response => json({ message }, status);
