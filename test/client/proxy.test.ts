// Corporate proxies: the built CLI sends its requests through HTTP_PROXY (a real proxy on
// loopback, which tunnels CONNECT and relays absolute-form requests), goes direct for a
// host NO_PROXY names, and `doctor` shows the proxy by host only, never its credentials.
// Also: a password in the base URL is never printed.
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyFor } from '../../src/lib/client/proxy.js';
import { runCli } from '../helpers/cli.js';
import { emulatorFor } from '../helpers/emulator.js';

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
    const upstream = connect(Number(port), host!, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await emu.close();
});

describe('HTTP_PROXY and NO_PROXY', () => {
  it('sends requests through HTTP_PROXY', async () => {
    const before = seen.length;
    const r = await runCli(['tx', 'list', '--json'], { env: { ...emu.env, HTTP_PROXY: proxyUrl } });
    expect(r.code, r.stderr).toBe(0);
    const port = new URL(emu.emulator.url).port;
    expect(seen.slice(before).some((line) => line.includes(`127.0.0.1:${port}`))).toBe(true);
  });

  it('goes direct for a host NO_PROXY names', async () => {
    const before = seen.length;
    const r = await runCli(['tx', 'list', '--json'], { env: { ...emu.env, HTTP_PROXY: proxyUrl, NO_PROXY: 'localhost,127.0.0.1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(seen.slice(before)).toEqual([]);
  });

  it('doctor names the proxy by host only, never its credentials', async () => {
    const withCreds = proxyUrl.replace('http://', 'http://ops:pr0xy-s3cret@');
    const r = await runCli(['doctor', '--json'], { env: { ...emu.env, HTTP_PROXY: withCreds } });
    const checks = JSON.parse(r.stdout) as { name: string; status: string; detail: string }[];
    expect(checks.find((c) => c.name === 'proxy')).toEqual({ name: 'proxy', status: 'pass', detail: `${proxyUrl} (from HTTP_PROXY)` });
    expect(r.stdout + r.stderr).not.toContain('pr0xy-s3cret');
    const bypass = await runCli(['doctor', '--json'], { env: { ...emu.env, HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' } });
    expect((JSON.parse(bypass.stdout) as { name: string; detail: string }[]).find((c) => c.name === 'proxy')!.detail).toBe(
      `not used for 127.0.0.1: NO_PROXY has 127.0.0.1 (${proxyUrl} from HTTP_PROXY otherwise)`,
    );
  });

  it('a password in the base URL is never printed', async () => {
    const r = await runCli(['tx', 'get', '0b6f6a4e-6d2b-4c57-9a57-2a3f1f0e9a91', '--retries', '0'], {
      env: { OFFRAMP_API_KEY: 'sk_test_pw', OFFRAMP_BASE_URL: 'http://ops:b4se-s3cret@127.0.0.1:9/api/v1/partner' },
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('ops:***@127.0.0.1:9');
    expect(r.stderr).not.toContain('b4se-s3cret');
  });
});

describe('proxyFor (what doctor shows)', () => {
  const target = new URL('https://api.example.com/api/v1/partner');
  it('follows the client’s rules', () => {
    expect(proxyFor(target, {})).toEqual({ via: 'direct' });
    expect(proxyFor(target, { HTTP_PROXY: 'http://p:3128' })).toEqual({ via: 'proxy', proxy: 'http://p:3128', from: 'HTTP_PROXY' });
    expect(proxyFor(target, { HTTP_PROXY: 'http://p:3128', https_proxy: 'http://s:8080' })).toMatchObject({ proxy: 'http://s:8080', from: 'https_proxy' });
    expect(proxyFor(target, { HTTPS_PROXY: 'http://s:8080', NO_PROXY: '.example.com' })).toMatchObject({ via: 'bypassed', entry: '.example.com' });
    expect(proxyFor(target, { HTTPS_PROXY: 'http://s:8080', NO_PROXY: 'example.com:80' })).toMatchObject({ via: 'proxy' });
    expect(proxyFor(target, { HTTPS_PROXY: 'http://s:8080', NO_PROXY: '*' })).toMatchObject({ via: 'bypassed', entry: '*' });
  });
});
