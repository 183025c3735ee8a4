// Certificates made with openssl for one test run: a private CA, and leaves it signed for
// a chosen host and validity window (`openssl ca` is the one tool of OpenSSL 3.0 that
// takes a start date in the past or the future), plus a self-signed one no CA vouches for.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Pem = { key: Buffer; cert: Buffer; certPath: string };

/** Whether openssl can be run here (a test skips without it). */
export function haveOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

export function certificateAuthority() {
  const dir = mkdtempSync(join(tmpdir(), 'offramp-ca-'));
  const run = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe', cwd: dir });
  const caKey = join(dir, 'ca.key');
  const caCert = join(dir, 'ca.pem');
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', caKey, '-out', caCert, '-days', '2', '-subj', '/CN=Offramp Test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '1000\n');
  writeFileSync(
    join(dir, 'ca.cnf'),
    ['[ca]', 'default_ca = test', '[test]', `database = ${dir}/index.txt`, `new_certs_dir = ${dir}`, `serial = ${dir}/serial`, 'default_md = sha256', 'policy = any', 'copy_extensions = copy', 'unique_subject = no', '[any]', 'commonName = supplied', ''].join('\n'),
  );
  let n = 0;
  return {
    /** The CA's certificate, for NODE_EXTRA_CA_CERTS. */
    certPath: caCert,
    /**
     * A leaf for `san` (e.g. `IP:127.0.0.1`, `DNS:api.example.test`) valid from `start` to
     * `end` (YYYYMMDDHHMMSSZ).
     */
    leaf(cn: string, san: string, start: string, end: string): Pem {
      const base = join(dir, `leaf${++n}`);
      run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${cn}`, '-addext', `subjectAltName=${san}`]);
      run(['ca', '-batch', '-config', join(dir, 'ca.cnf'), '-cert', caCert, '-keyfile', caKey, '-in', `${base}.csr`, '-out', `${base}.pem`, '-startdate', start, '-enddate', end, '-notext']);
      return { key: readFileSync(`${base}.key`), cert: readFileSync(`${base}.pem`), certPath: `${base}.pem` };
    },
    /** A certificate for `san` that signs itself: no authority vouches for it. */
    selfSigned(cn: string, san: string): Pem {
      const base = join(dir, `self${++n}`);
      run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.pem`, '-days', '2', '-subj', `/CN=${cn}`, '-addext', `subjectAltName=${san}`]);
      return { key: readFileSync(`${base}.key`), cert: readFileSync(`${base}.pem`), certPath: `${base}.pem` };
    },
  };
}
