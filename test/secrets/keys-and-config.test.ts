// Secrets and the config file (issue #16, item 13): redaction never alters data; a damaged,
// foreign or too-open config is named, refused or put right; a key that cannot be a header
// is refused before any request. A key the service sends back never reaches stderr, in
// whatever form it comes (issue #21).
import { chmodSync, chownSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { tempHome } from '../helpers/cli.js';
import { isRoot, NOBODY } from '../helpers/root.js';
import { runMain } from '../helpers/main.js';
import { errorBody, json, scriptedServer } from '../helpers/server.js';
import { snapshot } from '../tx/fixtures.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: ['test', 'null'] });
});
afterAll(() => emu.close());

describe('redaction never alters data', () => {
  it('a short key leaves a reference that contains it alone, on stdout and in --json', async () => {
    const env = { OFFRAMP_API_KEY: 'test', OFFRAMP_BASE_URL: emu.url };
    const made = await runMain(['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', 'test-order-1', '--json'], { env });
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).merchant_reference).toBe('test-order-1');
    const got = await runMain(['tx', 'get', '--ref', 'test-order-1'], { env });
    expect(got.stdout).toContain('test-order-1');
  });

  it('with the key `null`, --json errors still parse', async () => {
    const r = await runMain(['tx', 'get', '0b6f6a4e-6d2b-4c57-9a57-2a3f1f0e9a91', '--json'], { env: { OFFRAMP_API_KEY: 'null', OFFRAMP_BASE_URL: emu.url } });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});

describe('the config file', () => {
  const withConfig = (content: string, mode = 0o600) => {
    const home = tempHome();
    mkdirSync(home.configDir, { recursive: true, mode: 0o700 });
    const file = join(home.configDir, 'config.json');
    writeFileSync(file, content);
    chmodSync(file, mode);
    return { home, file };
  };

  it('damaged: the file is named, nothing of it printed; config path still answers', async () => {
    const { home, file } = withConfig('{"current":"x","profiles":{"x":{"apiKey":"sk_live_0123456789abc');
    const r = await runMain(['profile', 'list'], { env: home.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: CONFIG: the config file ${file} cannot be read (it is not valid JSON)`);
    expect(r.stderr).not.toMatch(/sk_live|0123/);
    const path = await runMain(['config', 'path'], { env: home.env });
    expect(path.code).toBe(0);
    expect(path.stdout).toBe(`${file}\n`);
    const doctor = await runMain(['doctor', '--json'], { env: home.env });
    expect(doctor.code).toBe(8);
    expect(JSON.parse(doctor.stdout).find((c: { name: string }) => c.name === 'config file')).toMatchObject({ status: 'fail' });
  });

  it('doctor: a key in the file is a warning for a real service, not for a local profile', async () => {
    const profile = (env: string) => ({ env, baseUrl: emu.url, apiKey: 'test' });
    const { home } = withConfig(JSON.stringify({ profiles: { dev: profile('local'), stg: profile('staging') } }));
    const keyStorage = async (name: string) => {
      const r = await runMain(['doctor', '--json', '--profile', name], { env: home.env });
      return JSON.parse(r.stdout).find((c: { name: string }) => c.name === 'key storage');
    };
    expect(await keyStorage('dev')).toEqual({ name: 'key storage', status: 'pass', detail: 'file (the config file; a local profile)' });
    expect(await keyStorage('stg')).toEqual({ name: 'key storage', status: 'warn', detail: 'file (the config file, 0600): offramp profile migrate moves it to the system keychain' });
  });

  it('readable by others: put back to 0600, with a warning', async () => {
    const { home, file } = withConfig(JSON.stringify({ profiles: {} }), 0o644);
    const r = await runMain(['profile', 'list', '--json'], { env: home.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`warning: the config file ${file} was readable by other users (mode 0644); it is now 0600\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('writable by others: refused (exit 3), as ssh does', async () => {
    const writable = withConfig(JSON.stringify({ profiles: {} }));
    chmodSync(writable.home.configDir, 0o777);
    const r = await runMain(['profile', 'list'], { env: writable.home.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`error: CONFIG_UNSAFE: the config directory ${writable.home.configDir} is writable by its group and other users (mode 0777)`);
  });

  it.runIf(isRoot)('owned by another user: refused (exit 3), as ssh does', async () => {
    const foreign = withConfig(JSON.stringify({ profiles: {} }));
    chownSync(foreign.file, NOBODY, NOBODY);
    const f = await runMain(['profile', 'list'], { env: foreign.home.env });
    expect(f.code).toBe(3);
    expect(f.stderr).toContain(`the config file ${foreign.file} is owned by another user (uid 65534)`);
    expect(readFileSync(foreign.file, 'utf8')).toBe(JSON.stringify({ profiles: {} }));
  });
});

describe('a key that cannot be a header', () => {
  it('is refused before any request, saying why', async () => {
    const r = await runMain(['tx', 'list'], { env: { OFFRAMP_API_KEY: 'sk_test_abc\n', OFFRAMP_BASE_URL: emu.url } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error: UNAUTHORIZED: the API key contains a line break or another control character/);
  });
});

describe('a key in what the service sends back', () => {
  // A key with characters that JSON escapes (" and \) and that URL encoding spells another
  // way (/ + " \ and the space): each form it may take in a message is masked on stderr.
  const key = 'sk_live_9f8e7d6c/+"\\ q';
  const id = '0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91';
  const encoded = encodeURIComponent(key);
  const message = [
    `invalid key ${key}-old`,
    `or ${key}_2`,
    `inside x${key}y`,
    `quoted "${key}" and '${key}'`,
    `as JSON ${JSON.stringify({ key })}`,
    `url-encoded ?key=${encoded} and ${encoded.toLowerCase()}`,
    `form ${new URLSearchParams({ key }).toString()}`,
    `userinfo https://partner:${encoded}@api.example.com/`,
  ].join('; ');
  const env = (url: string) => ({ OFFRAMP_API_KEY: key, OFFRAMP_BASE_URL: url });

  it.each([[[] as string[]], [['--json']], [['--verbose']], [['--json', '--verbose']]])('never reaches stderr, whatever surrounds it (%s)', async (flags) => {
    const server = await scriptedServer([json(401, errorBody('UNAUTHORIZED', message))]);
    try {
      const r = await runMain(['tx', 'get', id, ...flags], { env: env(server.baseUrl) });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('invalid key ***-old; or ***_2; inside x***y');
      // Every form holds this run of characters; none of them is left.
      expect(r.stderr).not.toContain('9f8e7d6c');
      if (flags.includes('--json')) expect(JSON.parse(r.stderr.split('\n').find((l) => l.startsWith('{'))!).error.code).toBe('UNAUTHORIZED');
      if (flags.includes('--verbose')) expect(r.stderr).toMatch(/^> GET /m);
    } finally {
      await server.close();
    }
  });

  it('on stdout the data stays as sent; stderr says once that it holds the key, without it', async () => {
    const server = await scriptedServer([json(200, { success: true, data: snapshot({ merchant_reference: key }) })]);
    try {
      const r = await runMain(['tx', 'get', id, '--json'], { env: env(server.baseUrl) });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).merchant_reference).toBe(key);
      expect(r.stderr).toBe('warning: the output holds a key or secret this run knows (the service sent it back); stdout shows the data as sent, stderr masks it\n');
    } finally {
      await server.close();
    }
  });
});
