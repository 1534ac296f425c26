/**
 * A loopback server that serves one fixed page body over and over (`--pages` times, then a last
 * page), for paging benchmarks that measure the client rather than a fake tenant's filtering.
 * Prints `{ baseUrl, clientId, clientSecret }` as one JSON line once it listens.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { broadPage } from './broad-page.ts';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '50' } } });
const pages = Number(values.pages);
const page = broadPage();
// Each page is the same views with its own token; the body is built once per token, outside timing.
const bodies = Array.from({ length: pages }, (_, i) =>
  Buffer.from(JSON.stringify({ ...page, nextPageToken: i + 1 < pages ? `page-${i + 1}` : '' })),
);

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    if (request.url === '/auth/v1/token') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ access_token: 'bench-token', token_type: 'Bearer', expires_in: 3600 }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { pageToken?: string };
    const index = body.pageToken ? Number(body.pageToken.slice('page-'.length)) : 0;
    const answer = bodies[index] ?? bodies[0];
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': answer?.length ?? 0 });
    response.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  console.log(
    JSON.stringify({
      baseUrl: `http://127.0.0.1:${address.port}`,
      clientId: 'bench@127.0.0.1/pcc',
      clientSecret: 'bench',
    }),
  );
});
