import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/* A private CA and a server certificate it signed, for 127.0.0.1 and localhost, made with the openssl CLI. */

export interface TestCertificate {
  /** The CA's certificate: what a client must trust (NODE_EXTRA_CA_CERTS). */
  caFile: string;
  certFile: string;
  keyFile: string;
}

export function makeTestCertificate(dir: string): TestCertificate {
  const file = (name: string): string => join(dir, name);
  const openssl = (args: readonly string[]): void => void execFileSync('openssl', args, { stdio: 'pipe' });
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=forkpool test CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.crt'),
  ]);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', file('server.key'), '-out', file('server.csr')]);
  writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl([
    'x509',
    '-req',
    '-days',
    '2',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.crt'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.crt'),
  ]);
  return { caFile: file('ca.crt'), certFile: file('server.crt'), keyFile: file('server.key') };
}
