import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OTLP/HTTP collector on loopback for the CLI's export tests: what was posted to `/v1/traces`
 * and `/v1/metrics`, as text (the JSON exporters' bodies).
 */
export async function otlpCollector(): Promise<{
  readonly endpoint: string;
  traces(): string;
  metrics(): string;
  close(): void;
}> {
  const received: Array<{ path: string; body: string }> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ path: request.url ?? '', body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const of = (path: string) =>
    received
      .filter((r) => r.path === path)
      .map((r) => r.body)
      .join('');
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    traces: () => of('/v1/traces'),
    metrics: () => of('/v1/metrics'),
    close: () => server.close(),
  };
}
