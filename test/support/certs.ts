import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface TestCerts {
  caPath: string;
  certPem: string;
  keyPem: string;
}

/**
 * A throwaway CA and a leaf for 127.0.0.1/localhost, made with the openssl CLI. The service
 * trusts the CA through NODE_EXTRA_CA_CERTS, exactly as a production operator would.
 */
export function makeCerts(dir: string): TestCerts {
  const p = (f: string) => path.join(dir, f);
  const run = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    p('ca.key'),
    '-out',
    p('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=profiling-test-ca',
  ]);
  run([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    p('leaf.key'),
    '-out',
    p('leaf.csr'),
    '-subj',
    '/CN=localhost',
  ]);
  writeFileSync(p('leaf.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n');
  run([
    'x509',
    '-req',
    '-in',
    p('leaf.csr'),
    '-CA',
    p('ca.pem'),
    '-CAkey',
    p('ca.key'),
    '-CAcreateserial',
    '-out',
    p('leaf.pem'),
    '-days',
    '2',
    '-extfile',
    p('leaf.ext'),
  ]);
  return {
    caPath: p('ca.pem'),
    certPem: readFileSync(p('leaf.pem'), 'utf8'),
    keyPem: readFileSync(p('leaf.key'), 'utf8'),
  };
}
