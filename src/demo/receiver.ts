import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import path from 'node:path';

/**
 * The demo's webhook receiver: HTTPS on 127.0.0.1 with a certificate of its own CA, which the
 * demo's service trusts through NODE_EXTRA_CA_CERTS (as an operator would trust a private CA). It
 * checks each event's signature and prints one line per event.
 */
export interface DemoReceiver {
  url: string;
  received: () => number;
  close(): Promise<void>;
}

/**
 * A CA and a leaf for 127.0.0.1 and localhost, made once with the openssl CLI into `dir`. Node
 * can read certificates but not issue them, and openssl is on every machine that builds this
 * project (Debian's base image has it); a missing openssl is said plainly.
 */
export function demoCertificates(dir: string): { caPath: string; cert: string; key: string } {
  const p = (f: string) => path.join(dir, f);
  if (!existsSync(p('leaf.pem'))) {
    mkdirSync(dir, { recursive: true });
    const run = (args: string[]) => {
      try {
        execFileSync('openssl', args, { stdio: 'pipe' });
      } catch (err) {
        throw new Error(`the demo receiver's certificate needs the openssl CLI: ${(err as Error).message}`);
      }
    };
    const subject = (cn: string) => ['-subj', `/CN=${cn}`];
    run(
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', p('ca.key'), '-out', p('ca.pem')].concat([
        '-days',
        '3650',
        ...subject('profiling-service demo CA'),
      ]),
    );
    run([
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      p('leaf.key'),
      '-out',
      p('leaf.csr'),
      ...subject('127.0.0.1'),
    ]);
    const ext = p('leaf.ext');
    execFileSync('sh', ['-c', `printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > "${ext}"`]);
    run(
      ['x509', '-req', '-in', p('leaf.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial'].concat([
        '-out',
        p('leaf.pem'),
        '-days',
        '3650',
        '-extfile',
        ext,
      ]),
    );
  }
  return { caPath: p('ca.pem'), cert: readFileSync(p('leaf.pem'), 'utf8'), key: readFileSync(p('leaf.key'), 'utf8') };
}

/** Whether `signature` (hex) is the HMAC-SHA256 of `body` under `secret`. */
export function signatureValid(body: Buffer, signature: string | undefined, secret: string): boolean {
  const want = createHmac('sha256', secret).update(body).digest();
  const got = Buffer.from(signature ?? '', 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}

export async function startDemoReceiver(opts: {
  certDir: string;
  port: number;
  secret: () => string;
  print: (line: string) => void;
}): Promise<DemoReceiver> {
  const { cert, key } = demoCertificates(opts.certDir);
  let count = 0;
  const server = createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const signed = signatureValid(body, req.headers['x-webhook-signature'] as string | undefined, opts.secret());
      res.writeHead(signed ? 200 : 401, { 'content-type': 'text/plain' }).end(signed ? 'ok' : 'bad signature');
      count++;
      try {
        const e = JSON.parse(body.toString('utf8'));
        const who = e.user?.id ?? '?';
        const segment = e.segment?.name ?? e.segment?.id ?? '?';
        const arrow = e.event_type === 'user_added' ? '+' : e.event_type === 'user_removed' ? '-' : ' ';
        opts.print(
          `webhook ${arrow} ${String(e.event_type).padEnd(12)} ${segment.padEnd(16)} ${who}` +
            `${signed ? '' : '  (signature did not verify)'}`,
        );
      } catch {
        opts.print(`webhook: a body that is not JSON (${body.length} bytes)`);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `https://127.0.0.1:${port}/hook`,
    received: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
