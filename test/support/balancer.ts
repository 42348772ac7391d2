import net from 'node:net';
import { freePort } from '../../src/free-port.js';

/**
 * A round-robin TCP load balancer in front of several api processes, as a production deployment
 * has one: each new connection goes to the next port. Connections are proxied byte for byte (HTTP
 * and gRPC alike); a gRPC channel stays on the process it reached first.
 */
export async function startBalancer(targets: number[]): Promise<{ port: number; close(): Promise<void> }> {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targets[next++ % targets.length], '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    client.on('error', () => (client.destroy(), upstream.destroy()));
    // The api reset the connection (its lingering close timed out with the client still sending):
    // what it answered before is passed on, then the client's side closes lingering as the api's
    // does (connections.ts). Destroying it at once with the client's bytes unread would reset it,
    // and a client still sending then loses the answer (a cluster run once lost a 400 so).
    upstream.on('error', () => {
      client.unpipe(upstream);
      client.end();
      client.resume();
      client.once('end', () => client.destroy());
      setTimeout(() => client.destroy(), 5_000).unref();
    });
    client.pipe(upstream).pipe(client);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
