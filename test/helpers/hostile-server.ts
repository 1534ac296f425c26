import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../src/index.ts';

/** One request as a hostile server saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** Answers one request; `seen` is everything received so far, this request last. */
export type HostileHandler = (
  request: SeenRequest,
  response: ServerResponse,
  seen: readonly SeenRequest[],
  message: IncomingMessage,
) => void | Promise<void>;

/** A node:http server on 127.0.0.1 that records every request and answers as `handle` says. */
export interface HostileServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly seen: SeenRequest[];
  /** Ends every connection and stops listening. */
  close(): Promise<void>;
}

/** Starts a hostile server; close it (or use {@link closeAll}) when done. */
export async function hostileServer(handle: HostileHandler): Promise<HostileServer> {
  const seen: SeenRequest[] = [];
  const server = createServer(async (message, response) => {
    response.on('error', () => {}); // the client may hang up mid-answer: that is the point
    const chunks: Buffer[] = [];
    for await (const chunk of message) chunks.push(chunk as Buffer);
    const request = {
      method: message.method ?? '',
      url: message.url ?? '',
      headers: message.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    seen.push(request);
    try {
      await handle(request, response, seen, message);
    } catch {
      response.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `body` as JSON with `status` and `headers`. */
export function answer(
  response: ServerResponse,
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(text);
}

/** A logger that keeps every line, with its data, as text in `lines` (empty it between tests). */
export function recordingLogger(): { readonly logger: Logger; readonly lines: string[] } {
  const lines: string[] = [];
  const record = (message: string, data?: Record<string, unknown>) =>
    void lines.push(`${message} ${JSON.stringify(data ?? {})}`);
  return { logger: { error: record, warn: record, info: record, debug: record }, lines };
}
