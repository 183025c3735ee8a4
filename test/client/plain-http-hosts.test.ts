// Plain http to a named host (a CI service alias, docs/configuration.md, "Base URL"): refused
// unless OFFRAMP_ALLOW_HTTP_HOSTS names it, for the API key and the admin token alike. A name
// such as offramp-emulator does not resolve here, so the CLI reaches it through http_proxy: a
// proxy on loopback that opens every tunnel it is asked for (CONNECT offramp-emulator:4010)
// to the emulator; inside, the request keeps the Host header the CLI sent (the emulator
// answers that name because it was started with it). What the proxy sees is what the CLI
// sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainHttpAllowed } from '../../src/lib/client/url.js';
import { emulatorFor } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { openTunnel } from '../helpers/tunnel.js';

const ALIAS_URL = 'http://offramp-emulator:4010/api/v1/partner';
const TOKEN = 'admin-token-for-ci';
let emu: Awaited<ReturnType<typeof emulatorFor>>;
let proxy: Server;
let env: Record<string, string>;
const seen: string[] = [];

beforeAll(async () => {
  emu = await emulatorFor({ allowedHosts: ['offramp-emulator'], adminToken: TOKEN });
  const port = Number(new URL(emu.emulator.url).port);
  proxy = createServer((req, res) => res.writeHead(501).end());
  proxy.on('connect', (req, socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    openTunnel(socket, head, port);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  env = { ...emu.env, OFFRAMP_BASE_URL: ALIAS_URL, http_proxy: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` };
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await emu.close();
});

describe('plainHttpAllowed: the one rule for a URL that carries a secret', () => {
  const allowed = (url: string, names?: string) => plainHttpAllowed(new URL(url), names === undefined ? {} : { OFFRAMP_ALLOW_HTTP_HOSTS: names });

  it('https always, plain http to loopback, plain http to an exactly named host, nothing else', () => {
    expect(allowed('https://api.example.com/')).toBe('https');
    expect(allowed('http://127.0.0.1:4010/')).toBe('loopback');
    expect(allowed('http://[::1]:4010/')).toBe('loopback');
    expect(allowed('http://offramp-emulator:4010/')).toBeUndefined();
    expect(allowed('http://offramp-emulator:4010/', 'emulator, offramp-emulator')).toBe('named');
    expect(allowed('http://Offramp-Emulator:4010/', 'offramp-emulator')).toBe('named');
    // Exact names: no suffix, no prefix, no other host.
    expect(allowed('http://offramp-emulator.example.com/', 'offramp-emulator')).toBeUndefined();
    expect(allowed('http://emulator/', 'offramp-emulator')).toBeUndefined();
    expect(allowed('http://api.example.com/', '')).toBeUndefined();
  });

  it('refuses a value that is not a list of host names alone', () => {
    for (const bad of ['offramp-emulator:4010', '*.ci.internal', 'http://offramp-emulator', 'a b']) {
      expect(() => allowed('https://api.example.com/', bad)).toThrow(`OFFRAMP_ALLOW_HTTP_HOSTS: "${bad}" is not a host name`);
    }
  });
});

describe('plain http to a CI service alias', () => {
  it('is refused without OFFRAMP_ALLOW_HTTP_HOSTS: exit 2, the hint names the variable, nothing sent', async () => {
    const before = seen.length;
    const r = await runMain(['tx', 'list'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: USAGE: base URL ${ALIAS_URL} is plain http: the API key would cross the network in clear\n` +
        "hint: use https://offramp-emulator:4010/api/v1/partner (http is accepted only for loopback addresses, such as the emulator; for a CI service alias on the job's own network, name it in OFFRAMP_ALLOW_HTTP_HOSTS)\n",
    );
    // The admin token is held to the same rule.
    const reset = await runMain(['emulator', 'reset'], { env: { ...env, OFFRAMP_EMULATOR_ADMIN_TOKEN: TOKEN } });
    expect(reset.code).toBe(2);
    expect(reset.stderr).toContain(`base URL ${ALIAS_URL} is plain http: the admin token would cross the network in clear`);
    expect(reset.stderr).not.toContain(TOKEN);
    expect(seen.slice(before)).toEqual([]);
  });

  it('is sent when OFFRAMP_ALLOW_HTTP_HOSTS names the host', async () => {
    const before = seen.length;
    const r = await runMain(['tx', 'list', '--json'], { env: { ...env, OFFRAMP_ALLOW_HTTP_HOSTS: 'offramp-emulator' } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ data: [] });
    expect(seen.slice(before)).toEqual(['CONNECT offramp-emulator:4010']);
  });

  it('doctor warns that plain http is in use, and why it is allowed', async () => {
    const r = await runMain(['doctor', '--json'], { env: { ...env, OFFRAMP_ALLOW_HTTP_HOSTS: 'offramp-emulator' } });
    const checks = JSON.parse(r.stdout) as { name: string; status: string; detail: string }[];
    expect(checks.find((c) => c.name === 'base url')).toEqual({ name: 'base url', status: 'warn', detail: `${ALIAS_URL}: plain http, allowed by OFFRAMP_ALLOW_HTTP_HOSTS` });
  });

  it('a bad value exits 2 with one line, nothing sent', async () => {
    const before = seen.length;
    const r = await runMain(['tx', 'list'], { env: { ...env, OFFRAMP_ALLOW_HTTP_HOSTS: 'offramp-emulator:4010' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: USAGE: OFFRAMP_ALLOW_HTTP_HOSTS: "offramp-emulator:4010" is not a host name (give names alone, comma-separated: no scheme, port or wildcard)\n');
    expect(seen.slice(before)).toEqual([]);
  });
});
