// What a user meets first: version, help, usage errors, profiles, the raw `api` command.
// `--version` and `--help` are answered by the entry point itself, before the parser loads
// (src/main.ts), so they run the built binary; the rest is the whole CLI path in process.
import { existsSync, statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { errorBody, json, scriptedServer } from '../helpers/server.js';

describe('offramp (built binary)', () => {
  it('--version prints the tool and API version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^offramp \d+\.\d+\.\d+\nAPI \/api\/v1 \(interface 1\.0\.0\)\n$/);
  });

  it('--help groups the commands', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const group of ['Transactions:', 'Finance:', 'Webhooks:', 'Sandbox:', 'Setup:']) expect(r.stdout).toContain(group);
    expect(r.stdout).toContain('tx');
  });

});

describe('usage errors', () => {
  it('an unknown command exits 2 with a suggestion', async () => {
    const r = await runMain(['tx', 'cretae']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error: USAGE: unknown command 'cretae'/);
    expect(r.stderr).toMatch(/Did you mean create\?/);
  });

  it('a bad global number exits 2 before anything is sent', async () => {
    const r = await runMain(['--timeout', 'soon', 'tx', 'list']);
    expect(r.code).toBe(2);
  });
});

describe('profiles', () => {
  it('stores a key from stdin in a 0600 file and only ever shows it masked', async () => {
    const home = tempHome();
    const key = 'sk_test_very_secret_1234';
    const add = await runMain(['profile', 'add', 'dev', '--env', 'local', '--api-key-stdin'], { env: home.env, stdin: `${key}\n` });
    expect(add.code).toBe(0);
    expect(add.stdout + add.stderr).not.toContain(key);

    const path = (await runMain(['config', 'path'], { env: home.env })).stdout.trim();
    expect(path.startsWith(home.dir)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8')).profiles.dev.apiKey).toBe(key);

    const show = await runMain(['profile', 'show'], { env: home.env });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('sk_…1234');
    expect(show.stdout).toContain('(current)');
    expect(show.stdout + show.stderr).not.toContain(key);

    const list = await runMain(['profile', 'list', '--json'], { env: home.env });
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ name: 'dev', current: true, env: 'local', base_url: 'http://127.0.0.1:4010/api/v1/partner', api_key: 'sk_…1234' }),
    ]);
  });

  it('reading the config never creates it: profile list, doctor, completion words, config path', async () => {
    const home = tempHome();
    const file = join(home.configDir, 'config.json');
    for (const args of [['profile', 'list'], ['doctor'], ['__complete', 'profiles'], ['config', 'path']]) {
      await runMain(args, { env: home.env });
      expect(existsSync(file), args.join(' ')).toBe(false);
    }
    expect((await runMain(['config', 'path'], { env: home.env })).stdout.trim()).toBe(file);
  });

  it('switches and removes profiles; a missing one is a usage error', async () => {
    const home = tempHome();
    await runMain(['profile', 'add', 'a', '--env', 'local', '--api-key-stdin'], { env: home.env, stdin: 'sk_a_000000001\n' });
    await runMain(['profile', 'add', 'b', '--env', 'staging', '--base-url', 'https://staging.example.test/api/v1/partner', '--api-key-stdin'], { env: home.env, stdin: 'sk_b_000000002\n' });
    expect((await runMain(['profile', 'use', 'b'], { env: home.env })).code).toBe(0);
    expect(JSON.parse((await runMain(['profile', 'show', '--json'], { env: home.env })).stdout)).toMatchObject({ name: 'b', env: 'staging' });
    expect((await runMain(['profile', 'remove', 'a'], { env: home.env })).code).toBe(0);
    const missing = await runMain(['profile', 'use', 'a'], { env: home.env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no profile named "a"/);
  });

  it('a local profile without a key uses the emulator default key; the config dir is 0700', async () => {
    const home = tempHome();
    const add = await runMain(['profile', 'add', 'dev', '--env', 'local'], { env: home.env });
    expect(add.code).toBe(0);
    const show = JSON.parse((await runMain(['profile', 'show', '--json'], { env: home.env })).stdout);
    expect(show).toMatchObject({ env: 'local', api_key: 'sk_…ator' });
    expect(statSync(home.configDir).mode & 0o777).toBe(0o700);
  });

  it('refuses a staging profile without a base URL when it cannot ask', async () => {
    const home = tempHome();
    const r = await runMain(['profile', 'add', 's', '--env', 'staging', '--api-key-stdin'], { env: home.env, stdin: 'sk_x_12345678\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--base-url/);
  });

  it('without any key, a command exits 3 and sends nothing', async () => {
    const home = tempHome();
    const server = await scriptedServer([]);
    const r = await runMain(['api', 'GET', '/transactions'], { env: { ...home.env, OFFRAMP_BASE_URL: server.baseUrl } });
    await server.close();
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no API key/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('offramp api', () => {
  it('sends an authenticated request and prints the body; the key never shows in --verbose', async () => {
    const key = 'sk_test_api_cmd_5678';
    const server = await scriptedServer([json(200, { success: true, data: { id: 'x' } })]);
    const r = await runMain(['api', 'GET', '/transactions/x?expand=1', '--verbose', '--api-key', key, '--base-url', server.baseUrl]);
    await server.close();
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ success: true, data: { id: 'x' } });
    expect(server.requests[0]!.url).toBe('/api/v1/partner/transactions/x?expand=1');
    expect(server.requests[0]!.headers['x-api-key']).toBe(key);
    expect(r.stderr).toMatch(/> GET http/);
    expect(r.stderr).not.toContain(key);
  });

  it('--paginate follows cursors into one array', async () => {
    const server = await scriptedServer([
      json(200, { success: true, data: { data: [{ n: 1 }], has_more: true, limit: 1, next_cursor: 'c2' } }),
      json(200, { success: true, data: { data: [{ n: 2 }], has_more: false, limit: 1, next_cursor: null } }),
    ]);
    const r = await runMain(['api', 'GET', '/transactions', '--paginate'], { env: { OFFRAMP_API_KEY: 'sk_t_1234567', OFFRAMP_BASE_URL: server.baseUrl } });
    await server.close();
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ n: 1 }, { n: 2 }]);
    // Without a limit in the path it asks for full pages, so a full page without a cursor shows.
    expect(server.requests[1]!.url).toBe('/api/v1/partner/transactions?limit=100&cursor=c2');
  });

  it('--paginate finds the cursor beside data, percent-encodes it, and refuses a full page without one', async () => {
    const server = await scriptedServer([
      json(200, { success: true, data: [{ n: 1 }, { n: 2 }], has_more: true, next_cursor: 'a+b/c==' }),
      json(200, { success: true, data: [{ n: 3 }], meta: { has_more: false } }),
      json(200, { success: true, data: [{ n: 1 }, { n: 2 }] }),
    ]);
    const env = { OFFRAMP_API_KEY: 'sk_t_1234567', OFFRAMP_BASE_URL: server.baseUrl };
    const ok = await runMain(['api', 'GET', '/transactions?limit=2', '--paginate'], { env });
    const full = await runMain(['api', 'GET', '/transactions?limit=2', '--paginate'], { env });
    await server.close();
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(server.requests[1]!.url).toBe('/api/v1/partner/transactions?limit=2&cursor=a%2Bb%2Fc%3D%3D');
    expect(full.code).toBe(1);
    expect(full.stdout).toBe('');
    expect(full.stderr).toMatch(/^error: INCOMPLETE_LIST: GET \/transactions: a full page \(2 of limit 2\) came back with no cursor/);
  });

  it('maps API errors to exit codes; --json puts the envelope on stderr', async () => {
    const envelope = errorBody('NOT_FOUND', 'Transaction not found');
    const server = await scriptedServer([json(404, envelope), json(404, envelope)]);
    const env = { OFFRAMP_API_KEY: 'sk_t_1234567', OFFRAMP_BASE_URL: server.baseUrl };
    const plain = await runMain(['api', 'GET', '/transactions/nope'], { env });
    const asJson = await runMain(['api', 'GET', '/transactions/nope', '--json'], { env });
    await server.close();
    expect(plain.code).toBe(4);
    expect(plain.stderr).toBe('error: NOT_FOUND: Transaction not found\n');
    expect(asJson.code).toBe(4);
    expect(JSON.parse(asJson.stderr)).toEqual(envelope);
    expect(asJson.stdout).toBe('');
  });

  it('rejects bad JSON in --data before sending', async () => {
    const server = await scriptedServer([]);
    const r = await runMain(['api', 'POST', '/quotes', '--data', '{nope'], { env: { OFFRAMP_API_KEY: 'sk_t_1234567', OFFRAMP_BASE_URL: server.baseUrl } });
    await server.close();
    expect(r.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});
