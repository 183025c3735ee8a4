// URLs as they may be printed (a base URL or a proxy URL can carry a password, and nothing
// the CLI writes may show one), and whether a host is this machine.
import { BlockList, isIP } from 'node:net';

/** `url` with a password replaced by `***` (a user name stays), even in one that does not parse (a mistyped proxy). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^/@:]*):[^/@]*@/, '//$1:***@');
  }
}

/** The base URL without credentials (a proxy-style `user:pass@` never reaches a file). */
export function publicUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '';
  }
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Whether a host (a URL's hostname, a bind or peer address) is loopback: an IP literal in
 * 127.0.0.0/8 or ::1 (IPv4-mapped too), or exactly `localhost`; `127.example.invalid` is not.
 */
export function isLoopbackHost(host: string | undefined): boolean {
  const bare = (host ?? '').replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  return bare.toLowerCase() === 'localhost' || (family !== 0 && LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6'));
}

/** A `Host` header or a host name, as a browser reads it: hostname (normalised) and port as written ('' when none). */
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
