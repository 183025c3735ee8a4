// Which proxy a request to the service goes through, read from the environment as curl
// reads it (docs/configuration.md, "Proxies"). The one place that decides it: the HTTP
// client dispatches through what `resolveProxy` says, and `doctor` shows the same answer.
// An http:// URL never reads upper-case HTTP_PROXY, which a CGI server fills from a
// request's `Proxy:` header (httpoxy); curl does not either.
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { UsageError } from '../errors.js';
import { displayUrl } from './url.js';

export type ProxyChoice =
  | { via: 'direct'; unread: string[] }
  | { via: 'proxy'; url: URL; proxy: string; from: string; unread: string[] }
  | { via: 'bypassed'; proxy: string; from: string; entry: string; noProxyFrom: string; unread: string[] };

/** A proxy variable that cannot be read; nothing is sent (exit 2). */
export class ProxySettingError extends UsageError {}

const DEFAULT_PROXY_PORT: Record<string, string> = { 'http:': '1080', 'https:': '443' };
const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'];

function read(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function resolveProxy(target: URL, env: NodeJS.ProcessEnv): ProxyChoice {
  // The variables read for this target, in order.
  const names = [...(target.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy']), 'all_proxy', 'ALL_PROXY'];
  const from = names.find((name) => read(env, name) !== undefined);
  // Set, but never read for this URL (doctor says so: an ignored HTTP_PROXY surprises people).
  const unread = PROXY_VARIABLES.filter((name) => !names.includes(name) && read(env, name) !== undefined);
  if (!from) return { via: 'direct', unread };
  const url = parseProxy(read(env, from)!, from);
  const proxy = proxyHost(url);
  const noProxyFrom = ['no_proxy', 'NO_PROXY'].find((name) => read(env, name) !== undefined);
  if (noProxyFrom) {
    const entry = noProxyMatch(target, read(env, noProxyFrom)!, noProxyFrom);
    if (entry !== undefined) return { via: 'bypassed', proxy, from, entry, noProxyFrom, unread };
  }
  return { via: 'proxy', url, proxy, from, unread };
}

/** A proxy variable's value as a URL with its port, or an error naming the variable. */
export function parseProxy(value: string, name: string): URL {
  const written = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(written);
  } catch {
    throw new ProxySettingError(`${name} is not a proxy URL (${JSON.stringify(displayUrl(written))})`, `write it like http://proxy.example:3128 (or host:port)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProxySettingError(`${name}: ${url.protocol}// proxies are not supported`, 'give an http:// or https:// proxy');
  }
  if (!url.hostname) throw new ProxySettingError(`${name} names no proxy host`, 'write it like http://proxy.example:3128');
  // `new URL` also leaves the port empty for an explicit :80 or :443, which then is the
  // scheme's; only a value with no port at all gets curl's proxy default.
  if (url.port === '' && !hasPort(written)) url.port = DEFAULT_PROXY_PORT[url.protocol]!;
  return url;
}

function hasPort(written: string): boolean {
  const authority = written.replace(/^[^:]+:\/\//, '').split(/[/?#]/)[0]!.replace(/^.*@/, '');
  return /:\d*$/.test(authority.replace(/^\[[^\]]*\]/, ''));
}

/**
 * `scheme://host:port` of a proxy: never its user or password. Not displayUrl, which shows a
 * URL as written: this is where the proxy is dialled, so the port shows even when it is a
 * default (curl's 1080 for a proxy with none surprises people).
 */
export function proxyHost(url: URL): string {
  const port = url.port || String(DEFAULT_PORTS[url.protocol]);
  return `${url.protocol}//${url.hostname}:${port}`;
}

/**
 * The NO_PROXY entry that sends `target` direct, or undefined. As curl 7.86+: `*` is
 * everything; a name matches itself and its subdomains (a leading `.` or `*.` is ignored);
 * an IP address matches an address entry or a CIDR range (`10.0.0.0/8`, `fd00::/8`), IPv6
 * bracketed or bare. Beyond curl, `host:port` matches that port only. Names are not
 * resolved: `localhost` does not match 127.0.0.1.
 */
export function noProxyMatch(target: URL, list: string, name = 'NO_PROXY'): string | undefined {
  const host = target.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0;
  const ip = isIPv4(host) ? 4 : isIPv6(host) ? 6 : 0;
  for (const entry of list.split(/[,\s]+/)) {
    if (!entry) continue;
    if (entry === '*') return entry;
    const { pattern, entryPort } = splitPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    const [address = '', bits] = pattern.split('/');
    const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : 0;
    if (bits !== undefined) {
      const max = family === 4 ? 32 : 128;
      if (!family || !/^\d+$/.test(bits) || Number(bits) > max) {
        throw new ProxySettingError(`${name}: "${entry}" is not a CIDR range`, 'write a range like 10.0.0.0/8 or fd00::/8');
      }
    }
    if (ip) {
      if (family === ip && inRange(host, address, bits === undefined ? (ip === 4 ? 32 : 128) : Number(bits), ip === 4 ? 'ipv4' : 'ipv6')) return entry;
      continue;
    }
    if (family) continue;
    const domain = pattern.replace(/^\*?\./, '').replace(/\.$/, '').toLowerCase();
    if (domain && (host === domain || host.endsWith(`.${domain}`))) return entry;
  }
  return undefined;
}

/** `host:port`, `[v6]:port`, a bare IPv6 address (no port), or a name. */
function splitPort(entry: string): { pattern: string; entryPort?: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { pattern: bracketed[1]!, ...(bracketed[2] ? { entryPort: Number(bracketed[2]) } : {}) };
  const withPort = /^([^:]+):(\d+)$/.exec(entry);
  if (withPort) return { pattern: withPort[1]!, entryPort: Number(withPort[2]) };
  return { pattern: entry };
}

/** Whether `host` is in `network`/`bits`, both of one family (Node's BlockList does the masking). */
function inRange(host: string, network: string, bits: number, family: 'ipv4' | 'ipv6'): boolean {
  const range = new BlockList();
  range.addSubnet(network, bits, family);
  return range.check(host, family);
}
