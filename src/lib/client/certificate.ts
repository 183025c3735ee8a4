// A certificate Node refused, said as its problem, with the fact that helps: the names it
// was issued for, its dates, or the variable that trusts a private CA. The handshake
// failed before any request was written, so the key never reached that host; the caller
// neither retries (the certificate will not change between attempts) nor recovers. The
// one source for every https request the CLI makes: the client's, and the relays to the
// partner's app (`webhooks listen --forward-to`, `webhooks resend --to`).
import { isIP } from 'node:net';
import type { PeerCertificate } from 'node:tls';
import { CertificateRefused } from './errors.js';

/** OpenSSL's and Node's codes for a chain that leads to no authority this machine trusts. */
const UNTRUSTED = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_UNTRUSTED', 'INVALID_CA']);

/** The other verdicts on a certificate: refusals too, said with Node's own words. */
const OTHER_REFUSALS = new Set([
  'CERT_SIGNATURE_FAILURE', 'CERT_REVOKED', 'CERT_REJECTED', 'CERT_CHAIN_TOO_LONG', 'PATH_LENGTH_EXCEEDED', 'INVALID_PURPOSE', 'HOSTNAME_MISMATCH',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE', 'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY', 'ERROR_IN_CERT_NOT_BEFORE_FIELD', 'ERROR_IN_CERT_NOT_AFTER_FIELD', 'ERR_TLS_CERT_ALTNAME_FORMAT',
]);

const TLS_INTERCEPTION_HINT =
  "if the service uses a private CA, or a proxy here inspects TLS, point NODE_EXTRA_CA_CERTS at that CA's certificate (a PEM file)";

export type RefusalOptions = {
  /** For dates, the certificate is read once more, directly: not through a proxy. */
  canLook: boolean;
  /** What is left of the caller's deadline: the look ends then, or when `signal` aborts. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** What the user wrote the URL in (a hint names it); default 'the base URL'. */
  urlFrom?: string;
  /** How a private CA is trusted for this request; default TLS_INTERCEPTION_HINT. */
  trust?: string;
};

/** What Node's error for another host carries (tls.checkServerIdentity's). */
type AltnameError = { host?: string; cert?: PeerCertificate };

/**
 * The error `err` is when a certificate was refused (CERTIFICATE, exit 7, never retried);
 * undefined for any other failure. `what` names the request (`GET https://…`) where the
 * message does not already say it.
 */
export async function certificateError(err: unknown, target: URL, what: string | undefined, opts: RefusalOptions): Promise<CertificateRefused | undefined> {
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code;
  if (!code) return undefined;
  const refused = (problem: string, hint?: string) => new CertificateRefused(`${what ? `${what}: ` : ''}${problem} (${code})`, hint);
  const clock = `it reads ${iso(new Date())}`;
  if (UNTRUSTED.has(code)) return refused("the server's certificate is not signed by an authority this machine trusts", opts.trust ?? TLS_INTERCEPTION_HINT);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const { host, cert } = err as AltnameError;
    // The DNS names and addresses it was issued for (its common name when it has none).
    const alt = (cert?.subjectaltname ?? '')
      .split(/,\s*/)
      .map((n) => n.replace(/^(DNS|IP Address):/, ''))
      .filter(Boolean);
    const names = alt.length || !cert?.subject?.CN ? alt : [String(cert.subject.CN)];
    const check = `check the host in ${opts.urlFrom ?? 'the base URL'}`;
    return refused(`the server's certificate is not for ${host ?? target.hostname}`, names.length ? `it was issued for ${names.join(', ')}: ${check}` : check);
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    const cert = opts.canLook ? await presented(target, opts.timeoutMs, opts.signal) : undefined;
    const [from, to] = cert ? [new Date(cert.valid_from), new Date(cert.valid_to)] : [];
    const valid = from && to && !Number.isNaN(from.getTime()) && !Number.isNaN(to.getTime()) ? `${iso(from)} to ${iso(to)}` : undefined;
    if (code === 'CERT_HAS_EXPIRED') {
      return refused(
        to && valid ? `the server's certificate expired on ${day(to)}` : "the server's certificate has expired",
        `${valid ? `it was valid from ${valid}; ` : ''}the service must renew it (or this machine's clock is wrong: ${clock})`,
      );
    }
    return refused(
      from && valid ? `the server's certificate is not valid before ${day(from)}` : "the server's certificate is not valid yet",
      `${valid ? `it is valid from ${valid}; ` : ''}check this machine's clock (${clock})`,
    );
  }
  if (OTHER_REFUSALS.has(code)) return refused(`the server's certificate was refused: ${e.message ?? code}`);
  return undefined;
}

/**
 * The certificate the server at `target` presents, read in a handshake that trusts nothing
 * and sends nothing (the socket is destroyed as soon as the handshake ends); undefined
 * when it cannot be read within `timeoutMs`.
 */
async function presented(target: URL, timeoutMs: number, signal?: AbortSignal): Promise<PeerCertificate | undefined> {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  // Loaded here: a run that talks plain http to the emulator never needs node:tls.
  const { connect } = await import('node:tls');
  return new Promise((resolve) => {
    const socket = connect({
      host,
      port: Number(target.port || 443),
      ...(isIP(host) ? {} : { servername: host }),
      // Only to read what it presents: no byte of a request is written on this socket.
      rejectUnauthorized: false,
    });
    const done = (cert: PeerCertificate | undefined) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      socket.destroy();
      resolve(cert);
    };
    const stop = () => done(undefined);
    const timer = setTimeout(stop, timeoutMs);
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      done(cert?.valid_to ? cert : undefined);
    });
    // Any error ends the look; one after it is over changes nothing (resolve is once).
    socket.on('error', () => done(undefined));
  });
}

function iso(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function day(d: Date): string {
  return d.toISOString().slice(0, 10);
}
