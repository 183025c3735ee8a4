// Corporate proxies: the CLI sends its requests through http_proxy (a real proxy on
// loopback, which tunnels CONNECT and relays absolute-form requests), goes direct for a
// host NO_PROXY names, and `doctor` shows the proxy by host only, never its credentials.
// Also: a password in the base URL is never printed; and the proxy variables are read as
// curl reads them (resolveProxy, the one decision the client and doctor share).
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveProxy } from '../../src/lib/client/proxy.js';
import { runMain } from '../helpers/main.js';
import { emulatorFor } from '../helpers/emulator.js';
import { openTunnel } from '../helpers/tunnel.js';

let proxy: Server;
let proxyUrl: string;
const seen: string[] = [];
let emu: Awaited<ReturnType<typeof emulatorFor>>;

beforeAll(async () => {
  emu = await emulatorFor();
  proxy = createServer((req, res) => {
    // Absolute-form request of a plain-http target.
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url!);
    const upstream = httpRequest({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  proxy.on('connect', (req, socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = req.url!.split(':');
    openTunnel(socket, head, Number(port), host);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await emu.close();
});

describe('http_proxy and NO_PROXY', () => {
  it('sends requests through http_proxy', async () => {
    const before = seen.length;
    const r = await runMain(['tx', 'list', '--json'], { env: { ...emu.env, http_proxy: proxyUrl } });
    expect(r.code, r.stderr).toBe(0);
    const port = new URL(emu.emulator.url).port;
    expect(seen.slice(before).some((line) => line.includes(`127.0.0.1:${port}`))).toBe(true);
  });

  it('goes direct for a host NO_PROXY names', async () => {
    const before = seen.length;
    const r = await runMain(['tx', 'list', '--json'], { env: { ...emu.env, http_proxy: proxyUrl, NO_PROXY: 'localhost,127.0.0.1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(seen.slice(before)).toEqual([]);
  });

  it('doctor names the proxy by host only, never its credentials', async () => {
    const withCreds = proxyUrl.replace('http://', 'http://ops:pr0xy-s3cret@');
    const r = await runMain(['doctor', '--json'], { env: { ...emu.env, http_proxy: withCreds } });
    const checks = JSON.parse(r.stdout) as { name: string; status: string; detail: string }[];
    expect(checks.find((c) => c.name === 'proxy')).toEqual({ name: 'proxy', status: 'pass', detail: `${proxyUrl} (from http_proxy)` });
    expect(r.stdout + r.stderr).not.toContain('pr0xy-s3cret');
    const bypass = await runMain(['doctor', '--json'], { env: { ...emu.env, http_proxy: proxyUrl, NO_PROXY: '127.0.0.1' } });
    expect((JSON.parse(bypass.stdout) as { name: string; detail: string }[]).find((c) => c.name === 'proxy')!.detail).toBe(
      `not used for 127.0.0.1: NO_PROXY has 127.0.0.1 (${proxyUrl} from http_proxy otherwise)`,
    );
  });

  it('a password in the base URL is never printed', async () => {
    const r = await runMain(['tx', 'get', '0b6f6a4e-6d2b-4c57-9a57-2a3f1f0e9a91', '--retries', '0'], {
      env: { OFFRAMP_API_KEY: 'sk_test_pw', OFFRAMP_BASE_URL: 'http://ops:b4se-s3cret@127.0.0.1:9/api/v1/partner' },
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('ops:***@127.0.0.1:9');
    expect(r.stderr).not.toContain('b4se-s3cret');
  });
});


describe('resolveProxy: the variables as curl reads them (what requests use, and doctor shows)', () => {
  const https = new URL('https://api.example.com/api/v1/partner');
  const http = new URL('http://127.0.0.1:4010/api/v1/partner');

  it('https reads https_proxy, then HTTPS_PROXY, then all_proxy / ALL_PROXY; the lower-case name wins', () => {
    expect(resolveProxy(https, {})).toEqual({ via: 'direct', unread: [] });
    expect(resolveProxy(https, { HTTPS_PROXY: 'http://s:8080' })).toMatchObject({ via: 'proxy', proxy: 'http://s:8080', from: 'HTTPS_PROXY' });
    expect(resolveProxy(https, { HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2' })).toMatchObject({ proxy: 'http://lower:2', from: 'https_proxy' });
    expect(resolveProxy(https, { ALL_PROXY: 'http://all:3' })).toMatchObject({ proxy: 'http://all:3', from: 'ALL_PROXY' });
    expect(resolveProxy(https, { ALL_PROXY: 'http://all:3', HTTPS_PROXY: 'http://s:4' })).toMatchObject({ from: 'HTTPS_PROXY' });
  });

  it('an http proxy variable is not read for https, and HTTP_PROXY never is (httpoxy); doctor is told which were set', () => {
    expect(resolveProxy(https, { HTTP_PROXY: 'http://p:3128', http_proxy: 'http://p:3128' })).toEqual({ via: 'direct', unread: ['http_proxy', 'HTTP_PROXY'] });
    expect(resolveProxy(http, { HTTP_PROXY: 'http://p:3128' })).toEqual({ via: 'direct', unread: ['HTTP_PROXY'] });
    expect(resolveProxy(http, { http_proxy: 'http://p:3128' })).toMatchObject({ via: 'proxy', from: 'http_proxy' });
  });

  it('an empty variable counts as unset: an empty https_proxy lets HTTPS_PROXY through, an empty http_proxy leaves http direct', () => {
    expect(resolveProxy(https, { https_proxy: '', HTTPS_PROXY: 'http://s:8080' })).toMatchObject({ via: 'proxy', from: 'HTTPS_PROXY' });
    expect(resolveProxy(http, { http_proxy: '', HTTP_PROXY: 'http://p:3128' })).toMatchObject({ via: 'direct', unread: ['HTTP_PROXY'] });
    expect(resolveProxy(https, { HTTPS_PROXY: 'http://s:8080', no_proxy: '', NO_PROXY: 'example.com' })).toMatchObject({ via: 'bypassed', noProxyFrom: 'NO_PROXY' });
  });

  it('host:port means http://host:port; no port is curl’s 1080 (443 for an https proxy); an explicit :80 stays', () => {
    expect(resolveProxy(https, { HTTPS_PROXY: '127.0.0.1:3128' })).toMatchObject({ proxy: 'http://127.0.0.1:3128' });
    expect(resolveProxy(https, { HTTPS_PROXY: 'proxy.corp' })).toMatchObject({ proxy: 'http://proxy.corp:1080' });
    expect(resolveProxy(https, { HTTPS_PROXY: 'https://proxy.corp' })).toMatchObject({ proxy: 'https://proxy.corp:443' });
    expect(resolveProxy(https, { HTTPS_PROXY: 'http://proxy.corp:80' })).toMatchObject({ proxy: 'http://proxy.corp:80' });
    expect(resolveProxy(https, { HTTPS_PROXY: 'http://ops:s3cret@[::1]:3128' })).toMatchObject({ proxy: 'http://[::1]:3128' });
  });

  it('a value that cannot be read is a usage error naming the variable, never showing a password', () => {
    expect(() => resolveProxy(https, { HTTPS_PROXY: 'http://ops:s3cret@[::1' })).toThrow(/^HTTPS_PROXY is not a proxy URL \("http:\/\/ops:\*\*\*@\[::1"\)$/);
    expect(() => resolveProxy(https, { https_proxy: 'socks5://127.0.0.1:1080' })).toThrow('https_proxy: socks5:// proxies are not supported');
    expect(() => resolveProxy(https, { HTTPS_PROXY: 'p:99999' })).toThrow(/^HTTPS_PROXY is not a proxy URL/);
    // The host:port form, and a password holding a slash, keep it off the screen too.
    expect(() => resolveProxy(https, { https_proxy: 'ops:s3cret@proxy:99999' })).toThrow('https_proxy is not a proxy URL ("http://ops:***@proxy:99999")');
    expect(() => resolveProxy(https, { HTTPS_PROXY: 'http://ops:s3/cret@proxy:99999' })).toThrow('HTTPS_PROXY is not a proxy URL ("http://ops:***@proxy:99999")');
    expect(() => resolveProxy(https, { HTTPS_PROXY: 'http://p:1', NO_PROXY: '10.0.0.0/33' })).toThrow('NO_PROXY: "10.0.0.0/33" is not a CIDR range');
  });

  it('NO_PROXY: names and their subdomains (a leading . or *. ignored), *, host:port, CIDR ranges, IPv6 bracketed or bare', () => {
    const via = (target: string, noProxy: string) => resolveProxy(new URL(target), { https_proxy: 'http://p:1', http_proxy: 'http://p:1', no_proxy: noProxy }).via;
    expect(via('https://api.example.com/', 'example.com')).toBe('bypassed');
    expect(via('https://api.example.com/', '.example.com')).toBe('bypassed');
    expect(via('https://api.example.com/', '*.example.com')).toBe('bypassed');
    expect(via('https://example.com/', '.example.com')).toBe('bypassed');
    expect(via('https://notexample.com/', 'example.com')).toBe('proxy');
    expect(via('https://API.Example.COM./', 'example.com')).toBe('bypassed');
    expect(via('https://anything.test/', '*')).toBe('bypassed');
    expect(via('https://api.example.com/', 'example.com:443')).toBe('bypassed');
    expect(via('https://api.example.com/', 'example.com:80')).toBe('proxy');
    expect(via('http://127.0.0.1:4010/', '127.0.0.0/8')).toBe('bypassed');
    expect(via('http://127.0.0.1:4010/', '10.0.0.0/8, 192.168.0.0/16')).toBe('proxy');
    expect(via('http://127.0.0.1:4010/', '127.0.0.1:4010')).toBe('bypassed');
    expect(via('http://127.0.0.1:4010/', 'localhost')).toBe('proxy'); // names are not resolved
    expect(via('http://[::1]:4010/', '::1')).toBe('bypassed');
    expect(via('http://[::1]:4010/', '[::1]')).toBe('bypassed');
    expect(via('http://[::1]:4010/', '[::1]:4010')).toBe('bypassed');
    expect(via('http://[fd00::5]:4010/', 'fd00::/8')).toBe('bypassed');
    expect(via('http://[fe80::5]:4010/', 'fd00::/8')).toBe('proxy');
    expect(via('http://[::ffff:10.1.2.3]/', '::ffff:10.0.0.0/104')).toBe('bypassed');
  });
});
