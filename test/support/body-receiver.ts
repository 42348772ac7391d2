import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { stack } from './api.js';

/**
 * An HTTPS receiver on 127.0.0.1 (the test CA's certificate) that answers every request 200 with
 * `body`: a receiver's own words, which the service records with the delivery and the console shows.
 */
export async function startBodyReceiver(body: string) {
  let received = 0;
  const server = https.createServer({ cert: stack().certPem, key: stack().keyPem }, (req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
