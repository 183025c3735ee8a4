// URLs as they may be printed (a base URL or a proxy URL can carry a password, and nothing
// the CLI writes may show one), and whether a host is this machine.
import { BlockList, isIP } from 'node:net';

/** `url` with a password replaced by `***` (a user name stays); anything unparsable as given. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

let loopback: BlockList | undefined;

/**
 * Whether a host is loopback: an IP literal in 127.0.0.0/8 or ::1 (IPv4-mapped too), or
 * exactly `localhost`. Decided from the parsed host (a URL's hostname, a bind or peer
 * address; IPv6 bracketed or bare), never from its text: `127.example.invalid` is a name
 * that may resolve anywhere.
 */
export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  const family = isIP(bare);
  if (family === 0) return false;
  if (!loopback) {
    loopback = new BlockList();
    loopback.addSubnet('127.0.0.0', 8, 'ipv4');
    loopback.addAddress('::1', 'ipv6');
  }
  return loopback.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * A `Host` header, or a host name alone, as a browser reads it: the hostname (lowercase,
 * IPv6 bracketed, IPv4 normalised) and the port as written ('' when none); undefined when
 * it is not a host. A bare IPv6 address is taken as one.
 */
export function parseHost(text: string): { hostname: string; port: string } | undefined {
  const host = isIP(text) === 6 ? `[${text}]` : text;
  if (/[\s/?#@\\]/.test(host)) return undefined;
  try {
    const { hostname } = new URL(`http://${host}`);
    return hostname === '' ? undefined : { hostname, port: /^(?:\[.*\]|[^:]*):(\d+)$/.exec(host)?.[1] ?? '' };
  } catch {
    return undefined;
  }
}
