import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeAnswer } from './fake-answers.ts';

// A real HTTP server for the testing kit: one of the few modules that use `node:` APIs (the
// others: the CLI, and the SQLite and PostgreSQL stores), loaded only by FakeTenant.listen().

async function toRequest(message: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  const headers = new Headers();
  // rawHeaders keeps every line of a repeated header (message.headers keeps only the first
  // Content-Type or Authorization); append joins them with ", " as fetch's Headers does, so the
  // msw and loopback paths agree. (rawHeaders, unlike headersDistinct, exists in Bun and Deno too.)
  const raw = message.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const hasBody = message.method !== 'GET' && message.method !== 'HEAD';
  return new Request(new URL(message.url ?? '/', origin), {
    method: message.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
  });
}

/**
 * A running loopback server.
 *
 * @group Testing kit
 */
export interface LoopbackServer {
  /** Its base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Stops it, ending kept-alive connections too. */
  close(): Promise<void>;
}

/**
 * Serves `handle` on loopback. Closing also ends kept-alive connections, so nothing holds the process open.
 *
 * @group Testing kit
 */
export async function serveOnLoopback(
  handle: (request: Request, remoteAddress: string | undefined) => Promise<FakeAnswer>,
  options: { port?: number; host?: string } = {},
): Promise<LoopbackServer> {
  const host = options.host ?? '127.0.0.1';
  let origin = '';
  const server = createServer(async (message, response) => {
    try {
      const answer = await handle(await toRequest(message, origin), message.socket.remoteAddress);
      if (answer === 'drop') {
        message.socket.destroy();
        return;
      }
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      response.end(Buffer.from(await answer.arrayBuffer()));
    } catch (error) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: `fake tenant failed: ${(error as Error).message}` }));
    }
  });
  // A port in use (EADDRINUSE) or not ours to take (EACCES) rejects, rather than escaping as an
  // unhandled 'error' event that ends the process with a stack trace.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
