import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback in front of a server, whose connections can go silent as a partitioned
 * or vanished host's do: nothing more is forwarded, either way, and nothing is closed (a
 * half-open connection: the client waits for an answer that never comes).
 */
export interface SilentProxy {
  /** `url` with its host and port turned to the proxy's. */
  readonly url: string;
  /** Makes every connection open now silent for good; later ones are forwarded. */
  silenceOpenConnections(): void;
  /** Closes the proxy and every connection. */
  close(): Promise<void>;
}

/** A {@link SilentProxy} in front of the server `url` names (`postgres://host:port/...`), on `port` (default: any free one). */
export async function silentProxy(url: string, port = 0): Promise<SilentProxy> {
  const target = new URL(url);
  const open = new Set<[Socket, Socket]>();
  const silenced: Socket[] = [];
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const pair: [Socket, Socket] = [client, upstream];
    open.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      open.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(address.port);
  return {
    url: proxied.href,
    silenceOpenConnections() {
      for (const pair of open) {
        const [client, upstream] = pair;
        client.unpipe(upstream);
        upstream.unpipe(client);
        // Read and drop what still comes, so neither side sees its writes refused.
        client.removeAllListeners('data').on('data', () => {});
        upstream.removeAllListeners('data').on('data', () => {});
        silenced.push(client, upstream);
        open.delete(pair);
      }
    },
    async close() {
      for (const socket of silenced) socket.destroy();
      for (const [client, upstream] of open) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
