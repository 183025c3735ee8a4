// `offramp emulator` (src/commands/emulator/serve.ts): URL on stdout, one line per request on
// stderr, no key or secret ever printed, flags validated, clean stop.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { run, type EmulatorCommandOptions } from '../../src/commands/emulator/serve.js';
import { OptionError, startEmulator } from '../../src/emulator/index.js';
import { UsageError } from '../../src/lib/errors.js';
import { IO } from '../../src/lib/io.js';
import { verify } from '../../src/lib/webhooks/signature.js';
import { BIN, tempHome } from '../helpers/cli.js';
import { eventually, webhookReceiver } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function capture(env: NodeJS.ProcessEnv = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (c: Buffer) => out.push(c.toString()));
  stderr.on('data', (c: Buffer) => err.push(c.toString()));
  const io = new IO({ stdin: new PassThrough(), stdout, stderr, env });
  return { io, env, stdout: () => out.join(''), stderr: () => err.join('') };
}

/** Runs the command until the test aborts it; answers the URL it printed. */
async function launch(opts: EmulatorCommandOptions, env: NodeJS.ProcessEnv = {}) {
  const cap = capture(env);
  const stop = new AbortController();
  const done = run(opts, { io: cap.io, env, signal: stop.signal });
  const failed = done.then(() => undefined, (e: unknown) => e);
  const url = await Promise.race([
    eventually(() => {
      const line = cap.stdout().trim();
      expect(line).toMatch(/^http:\/\//);
      return line;
    }),
    failed.then((e) => {
      throw e ?? new Error('command ended before printing a URL');
    }),
  ]);
  const stopAndWait = async () => {
    stop.abort();
    await done;
  };
  cleanups.push(() => (stop.signal.aborted ? undefined : stopAndWait()));
  return { ...cap, url, stop: stopAndWait };
}

describe('offramp emulator', () => {
  it('prints the base URL alone on stdout and one line per request on stderr, never the key or secret', async () => {
    const key = 'sk_cmd_partner_secret_value';
    const secret = 'whsec_cmd_super_secret';
    const cli = await launch({ port: '0', apiKey: [key], webhookSecret: secret });
    expect(cli.stdout()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/partner\n$/);

    const ok = await fetch(`${cli.url}/transactions`, { headers: { 'x-api-key': key } });
    expect(ok.status).toBe(200);
    const denied = await fetch(`${cli.url}/transactions`, { headers: { 'x-api-key': 'sk_test_emulator' } });
    expect(denied.status).toBe(401);
    await eventually(() => expect(cli.stderr()).toMatch(/GET \/api\/v1\/partner\/transactions 401 [\d.]+ms req_/));
    expect(cli.stderr()).toMatch(/GET \/api\/v1\/partner\/transactions 200 [\d.]+ms req_[0-9a-f]+\n/);
    expect(cli.stderr()).toContain('1 partner, one per --api-key');

    await cli.stop();
    // Without --state, what it held is gone, and the line says how to keep it.
    expect(cli.stderr()).toMatch(/emulator stopped; its data is gone \(held in memory only\): start it with --state FILE to keep it across restarts\n$/);
    await expect(fetch(`${cli.url}/transactions`, { headers: { 'x-api-key': key } })).rejects.toThrow();
    for (const text of [cli.stdout(), cli.stderr()]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(secret);
    }
  });

  it('prints the public test key and secret it uses by default, and how to give it an endpoint', async () => {
    const cli = await launch({ port: '0' });
    expect(cli.stderr()).toContain('(staging mode, 1 partner, public test key sk_test_emulator)');
    expect(cli.stderr()).toContain(
      'webhooks: recorded only, until `offramp webhooks listen` or `offramp emulator webhooks set-url URL` gives an endpoint (signed with the public test secret whsec_test_emulator)',
    );
    const res = await fetch(`${cli.url}/transactions`, { headers: { 'x-api-key': 'sk_test_emulator' } });
    expect(res.status).toBe(200);
    await cli.stop();
  });

  it('takes the webhook secret from OFFRAMP_WEBHOOK_SECRET and hides the webhook URL’s query', async () => {
    const hooks = await webhookReceiver();
    cleanups.push(hooks.close);
    const secret = 'whsec_from_environment';
    const cli = await launch({ port: '0', webhookUrl: `${hooks.url}?token=abc123` }, { OFFRAMP_WEBHOOK_SECRET: secret });
    const res = await fetch(`${cli.url}/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk_test_emulator', 'idempotency-key': 'k1', 'content-type': 'application/json' },
      body: JSON.stringify({ fiat_amount: '1000', crypto_currency: 'usdt', network: 'bep20', merchant_reference: 'cmd-1' }),
    });
    expect(res.status).toBe(201);
    await eventually(() => expect(hooks.deliveries).toHaveLength(1));
    expect(verify(hooks.deliveries[0]!.raw, secret, hooks.deliveries[0]!.headers['x-svc-webhook-signature'] as string).ok).toBe(true);
    await cli.stop();
    expect(cli.stderr()).not.toContain(secret);
    expect(cli.stderr()).not.toContain('abc123');
    expect(cli.stderr()).toContain('signed with the given secret');
  });

  it('reports fault settings and the seed to repeat them', async () => {
    const cli = await launch({ port: '0', faultRate: '0.25', latency: '5', seed: '99', seedRevenue: '10' });
    expect(cli.stderr()).toContain('faults: latency 5 ms, fault rate 0.25, seed 99');
    expect(cli.stderr()).toContain('seeded 10 revenue rows');
    await cli.stop();
  });

  it.each<[EmulatorCommandOptions, RegExp]>([
    [{ port: 'abc' }, /--port must be a whole number, 0 to 65535 \(got "abc"\)/],
    [{ port: '70000' }, /--port/],
    [{ faultRate: '2' }, /--fault-rate: "2" is not a probability/],
    [{ faultRate: 'often' }, /--fault-rate/],
    [{ latency: '-1' }, /--latency/],
    [{ seed: '1.5' }, /--seed/],
    [{ seedRevenue: 'lots' }, /--seed-revenue/],
    // @ts-expect-error -- commander's choices refuse it first; the emulator's own rule for callers from code
    [{ mode: 'prod' }, /mode must be staging or production, got prod/],
    [{ rate: '0' }, /--rate: "0" is not a positive decimal/],
    [{ rate: '1,550' }, /--rate/],
    [{ rateLimit: '-3' }, /--rate-limit/],
    [{ webhookUrl: 'not a url' }, /--webhook-url: "not a url" is not a URL/],
    [{ webhookUrl: 'ftp://example.com/x' }, /--webhook-url: must be an http/],
    [{ apiKey: ['has space'] }, /--api-key/],
    [{ host: ' ' }, /--host/],
    // Rules of startEmulator's alone (one home each): the message names the flag, or the variable beside it.
    [{ rateLimit: '2000000' }, /^--rate-limit must be a whole number from 0 to 1000000, got 2000000$/],
    [{ latency: '70s' }, /^--latency must be from 0 to 60000 ms, got 70000$/],
    [{ adminToken: 'short' }, /^--admin-token \/ OFFRAMP_EMULATOR_ADMIN_TOKEN: at least 8 characters, no spaces$/],
  ])('refuses %o with a UsageError before starting', async (opts, message) => {
    const cap = capture();
    const failure = await run({ port: '0', ...opts }, { io: cap.io, env: {} }).then(() => undefined, (e: unknown) => e);
    expect(failure).toBeInstanceOf(UsageError);
    expect((failure as Error).message).toMatch(message);
    expect(cap.stdout()).toBe('');
  });

  it('startEmulator holds the rules: an OptionError says each in the names of code, or in those the caller gives', async () => {
    const failure = await startEmulator({ port: 0, apiKeys: ['has space'] }).then(() => undefined, (e: unknown) => e);
    expect(failure).toBeInstanceOf(OptionError);
    expect((failure as Error).message).toBe('apiKeys: a key must be non-empty and contain no spaces');
    expect((failure as OptionError).say(() => '--api-key')).toBe('--api-key: a key must be non-empty and contain no spaces');
    const cap = capture();
    const refused = await run({ port: '0', apiKey: ['has space'] }, { io: cap.io, env: {} }).then(() => undefined, (e: unknown) => e);
    expect((refused as Error).message).toBe('--api-key: a key must be non-empty and contain no spaces');
  });

  it('turns a port in use into a UsageError naming it', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => blocker.close(() => r())));
    const port = (blocker.address() as AddressInfo).port;
    const cap = capture();
    const failure = await run({ port: String(port) }, { io: cap.io, env: {} }).then(() => undefined, (e: unknown) => e);
    expect(failure).toBeInstanceOf(UsageError);
    expect((failure as Error).message).toContain(`127.0.0.1:${port} is already in use`);
  });

  it('stops cleanly on SIGTERM in a real process (the built binary): exit 143, as the contract says', async () => {
    const child = spawn(process.execPath, [BIN, 'emulator', '--port', '0'], { env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    cleanups.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    await eventually(() => expect(stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/partner\n$/), 15_000);
    const url = stdout.trim();
    expect((await fetch(`${url}/transactions`, { headers: { 'x-api-key': 'sk_test_emulator' } })).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(stderr).toMatch(/stopping emulator\nemulator stopped; its data is gone \(held in memory only\): start it with --state FILE to keep it across restarts\n$/);
  });
});

describe('offramp emulator through main', () => {
  /** main in process, until the test ends (its abort signal plays Ctrl-C); the URL it printed. */
  async function start(args: string[]): Promise<{ url: string; stderr: () => string }> {
    const stop = new AbortController();
    let stderr = '';
    const stderrStream = new PassThrough().setEncoding('utf8');
    stderrStream.on('data', (d: string) => (stderr += d));
    let out = '';
    const stdout = new PassThrough().setEncoding('utf8');
    stdout.on('data', (d: string) => (out += d));
    const done = main(args, { stdin: new PassThrough(), stdout, stderr: stderrStream, env: { ...tempHome().env, NO_COLOR: '1' }, signal: stop.signal });
    cleanups.push(async () => {
      stop.abort();
      await done;
    });
    const url = await Promise.race([
      eventually(() => {
        expect(out).toMatch(/\n$/);
        return out.trim();
      }),
      done.then((code) => {
        throw new Error(`exited ${code}: ${stderr}`);
      }),
    ]);
    return { url, stderr: () => stderr };
  }

  it.each([
    ['after the command', ['emulator', '--port', '0', '--api-key', 'sk_bin_partner_a', '--api-key', 'sk_bin_partner_b']],
    ['before the command', ['--api-key', 'sk_bin_partner_a', '--api-key', 'sk_bin_partner_b', 'emulator', '--port', '0']],
  ])('serves every --api-key given %s, and not the default key', async (_where, args) => {
    const emu = await start(args);
    for (const key of ['sk_bin_partner_a', 'sk_bin_partner_b']) {
      expect((await fetch(`${emu.url}/transactions`, { headers: { 'x-api-key': key } })).status).toBe(200);
    }
    expect((await fetch(`${emu.url}/transactions`, { headers: { 'x-api-key': 'sk_test_emulator' } })).status).toBe(401);
    expect(emu.stderr()).toContain('2 partners, one per --api-key');
    expect(emu.stderr()).not.toContain('sk_bin_partner');
  });
});
