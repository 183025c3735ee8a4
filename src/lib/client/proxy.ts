// Which proxy a request to the service goes through, as the client's EnvHttpProxyAgent
// decides it (undici's public proxy agent): http_proxy / HTTP_PROXY for http, https_proxy /
// HTTPS_PROXY for https (falling back to the http proxy), no_proxy / NO_PROXY naming hosts
// that go direct (`*` for all; an entry matches the host and its subdomains, with an
// optional :port). `doctor` shows the result; a proxy's credentials are never shown.

export type ProxyChoice =
  | { via: 'direct' }
  | { via: 'proxy'; proxy: string; from: string }
  | { via: 'bypassed'; proxy: string; from: string; entry: string };

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

export function proxyFor(target: URL, env: NodeJS.ProcessEnv): ProxyChoice {
  const pick = (...names: string[]) => {
    for (const name of names) if (env[name]) return { value: env[name]!, from: name };
    return undefined;
  };
  const http = pick('http_proxy', 'HTTP_PROXY');
  const chosen = target.protocol === 'https:' ? (pick('https_proxy', 'HTTPS_PROXY') ?? http) : http;
  if (!chosen) return { via: 'direct' };
  const proxy = proxyHost(chosen.value);
  const noProxy = env.no_proxy ?? env.NO_PROXY ?? '';
  const hostname = target.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(target.port, 10) || DEFAULT_PORTS[target.protocol] || 0;
  if (noProxy === '*') return { via: 'bypassed', proxy, from: chosen.from, entry: '*' };
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = parsed ? Number(parsed[2]) : 0;
    if (entryPort && entryPort !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return { via: 'bypassed', proxy, from: chosen.from, entry };
  }
  return { via: 'proxy', proxy, from: chosen.from };
}

/** `scheme://host:port` of a proxy URL: never its user or password. */
export function proxyHost(value: string): string {
  try {
    const u = new URL(value);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(not a URL)';
  }
}
