// URLs as they may be printed (a base URL or a proxy URL can carry a password, and nothing
// the CLI writes may show one), whether a host is this machine, and which hosts plain http
// may carry a secret to.
import { BlockList, isIP } from 'node:net';
import { UsageError } from '../errors.js';

/**
 * `url` as it may be printed: a password is `***` (a user name stays), even in one that does
 * not parse (a mistyped proxy). With `query: false` (a webhook URL, whose user name or query
 * may be a token), only its scheme, host and path, and `?…` for a query. Not for a URL a file
 * records (publicUrl drops the credentials, so a reader can still call it) nor a proxy's
 * address (proxyHost: where it is dialled).
 */
export function displayUrl(url: string, { query = true }: { query?: boolean } = {}): string {
  try {
    const u = new URL(url);
    if (!query) return `${u.protocol}//${u.host}${u.pathname}${u.search ? '?…' : ''}`;
    if (!u.password) return url;
    u.password = '***';
    return u.toString();
  } catch {
    // To the last @ (a password may hold a / or an @), with or without a scheme (host:port form).
    return url.replace(/^([a-z][\w+.-]*:\/\/)?([^:/@]*):.*@/i, '$1$2:***@');
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

/** `value` as an http(s) URL, else a UsageError naming `what` it was given as (nothing is sent). */
export function httpUrl(value: string, what: string, example: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${what}: "${value}" is not a URL`, `write it like ${example}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${what}: must be an http:// or https:// URL, not ${url.protocol}//`);
  return url;
}

/** Host names plain http may reach besides loopback, comma-separated: a conscious choice, never a default. */
export const ALLOW_HTTP_HOSTS_ENV = 'OFFRAMP_ALLOW_HTTP_HOSTS';

/**
 * The one rule for a URL that carries a secret (the API key, the admin token): https; plain
 * http to loopback; or plain http to a host OFFRAMP_ALLOW_HTTP_HOSTS names exactly (a CI
 * service alias on the job's private network, docs/configuration.md, "Where settings come
 * from"). Undefined: refused. A bad entry in the variable is a usage error whatever the URL.
 */
export function plainHttpAllowed(url: URL, env: NodeJS.ProcessEnv): 'https' | 'loopback' | 'named' | undefined {
  const named = (env[ALLOW_HTTP_HOSTS_ENV] ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  for (const name of named) {
    if (name.includes('*') || parseHost(name)?.port !== '') {
      throw new UsageError(`${ALLOW_HTTP_HOSTS_ENV}: "${name}" is not a host name (give names alone, comma-separated: no scheme, port or wildcard)`);
    }
  }
  if (url.protocol !== 'http:') return url.protocol === 'https:' ? 'https' : undefined;
  if (isLoopbackHost(url.hostname)) return 'loopback';
  return named.some((name) => parseHost(name)!.hostname === url.hostname) ? 'named' : undefined;
}

/** Refuses (exit 2, nothing sent) a URL plainHttpAllowed refuses, saying what would cross in clear and the ways out. */
export function refusePlainHttp(url: URL, env: NodeJS.ProcessEnv, secret: string): void {
  if (plainHttpAllowed(url, env) !== undefined) return;
  const https = new URL(url);
  https.protocol = 'https:';
  throw new UsageError(
    `base URL ${displayUrl(url.toString())} is plain http: the ${secret} would cross the network in clear`,
    `use ${displayUrl(https.toString())} (http is accepted only for loopback addresses, such as the emulator; for a CI service alias on the job's own network, name it in ${ALLOW_HTTP_HOSTS_ENV})`,
  );
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
