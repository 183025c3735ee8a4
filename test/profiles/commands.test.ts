// The profile commands as a user runs them, in process (main → command → config store):
// a key from stdin in a 0600 file shown only masked, reading never creating the config,
// switching and removing, the local default key, and no key at all (exit 3, nothing sent).
import { existsSync, statSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { scriptedServer } from '../helpers/server.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';

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

  it('a profile named that none has is refused the same way by every command, naming those there are, nothing done', async () => {
    const home = tempHome();
    await runMain(['profile', 'add', 'dev', '--env', 'local', '--api-key-stdin'], { env: home.env, stdin: 'sk_dev_00000001\n' });
    const body = join(home.dir, 'body.json');
    writeFileSync(body, '{}');
    for (const args of [
      ['profile', 'use', 'typo'],
      ['profile', 'remove', 'typo'],
      ['profile', 'show', 'typo'],
      ['profile', 'migrate', 'typo'],
      ['--profile', 'typo', 'profile', 'show'],
      // Commands that need no API key read the profile in use for its settings alone.
      ['--profile', 'typo', 'webhooks', 'verify', '--file', body, '--signature', 'sha256=00'],
      // Commands that need a key, and the emulator's control commands, by the same rule.
      ['--profile', 'typo', 'tx', 'list'],
      ['--profile', 'typo', 'emulator', 'wait'],
    ]) {
      const r = await runMain(args, { env: home.env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe('error: USAGE: no profile named "typo"\nhint: known profiles: dev\n');
    }
    const typoEnv = await runMain(['webhooks', 'verify', '--file', body, '--signature', 'sha256=00'], { env: { ...home.env, OFFRAMP_PROFILE: 'typo' } });
    expect(typoEnv.stderr).toBe('error: USAGE: no profile named "typo"\nhint: known profiles: dev\n');
    expect(JSON.parse((await runMain(['profile', 'list', '--json'], { env: home.env })).stdout)).toEqual([expect.objectContaining({ name: 'dev', current: true })]);
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

describe('an empty OFFRAMP_PROFILE', () => {
  it('means unset: the current profile is used, by every command', async () => {
    const { emulator, home, close } = await emulatorFor();
    try {
      const add = await runMain(['profile', 'add', 'dev', '--env', 'local', '--base-url', emulator.url, '--api-key-stdin'], { env: home.env, stdin: TEST_KEY });
      expect(add.code).toBe(0);
      // The parser once read the process's own environment, the context the run's: both empty here.
      vi.stubEnv('OFFRAMP_PROFILE', '');
      const env = { ...home.env, OFFRAMP_PROFILE: '' };
      const list = await runMain(['tx', 'list', '--json'], { env });
      expect(list.stderr).toBe('');
      expect(list.code).toBe(0);
      const show = await runMain(['profile', 'show'], { env });
      expect(show.code).toBe(0);
      expect(show.stdout).toContain('dev (current)');
    } finally {
      vi.unstubAllEnvs();
      await close();
    }
  });
});
