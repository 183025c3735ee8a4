// Profiles that refuse mistakes (issue #16, items 2 and 3): no key as an argument, no
// silent replacement, no base URL that would send the key in clear or miss the API path.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { KEYS, runInPty } from '../helpers/pty.js';

const config = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, { baseUrl: string; apiKey?: string }> };

describe('profile add', () => {
  it('refuses --api-key, pointing to --api-key-stdin, and stores nothing', async () => {
    const home = tempHome();
    const r = await runMain(['profile', 'add', 'dev', '--env', 'local', '--api-key', 'abc'], { env: home.env });
    expect(r.code).toBe(2);
    // The flag was typed, so the process list showed it: warned, then refused.
    expect(r.stderr).toMatch(/^warning: --api-key is visible to other processes[^\n]*\nerror: USAGE: profile add does not take the key as an argument/);
    expect(r.stderr).toMatch(/--api-key-stdin/);
    expect(r.stderr).not.toContain('abc');
    expect(() => config(home.configDir)).toThrow();
  });

  it('replaces a profile only with --force when nobody can be asked', async () => {
    const home = tempHome();
    expect((await runMain(['profile', 'add', 'dev', '--env', 'local', '--base-url', 'http://127.0.0.1:5000/api/v1/partner'], { env: home.env })).code).toBe(0);
    const again = await runMain(['profile', 'add', 'dev', '--env', 'local'], { env: home.env });
    expect(again.code).toBe(2);
    expect(again.stderr).toBe('error: USAGE: profile "dev" exists (local, http://127.0.0.1:5000/api/v1/partner)\nhint: pass --force to replace it\n');
    expect(config(home.configDir).profiles.dev!.baseUrl).toBe('http://127.0.0.1:5000/api/v1/partner');
    const forced = await runMain(['profile', 'add', 'dev', '--env', 'local', '--force'], { env: home.env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toMatch(/^Replaced profile "dev"/);
    expect(config(home.configDir).profiles.dev!.baseUrl).toBe('http://127.0.0.1:4010/api/v1/partner');
  });

  it('asks on a terminal before replacing; No keeps the old one', { timeout: 20_000 }, async () => {
    const home = tempHome();
    expect((await runMain(['profile', 'add', 'dev', '--env', 'local', '--base-url', 'http://127.0.0.1:5000/api/v1/partner'], { env: home.env })).code).toBe(0);
    const s = runInPty(['profile', 'add', 'dev', '--env', 'local'], home.env, 20_000, 80);
    await s.waitFor('Replace profile "dev" (local, http://127.0.0.1:5000/api/v1/partner)?');
    s.type(`n${KEYS.enter}`);
    expect((await s.done).code).toBe(0);
    expect(config(home.configDir).profiles.dev!.baseUrl).toBe('http://127.0.0.1:5000/api/v1/partner');
  });

  it.each(['staging', 'production'])('on a terminal, a %s profile asks for the webhook secret, hidden; it is stored, never shown; empty skips it', { timeout: 40_000 }, async (env) => {
    const home = tempHome();
    // No keychain in this session: the key and the secret are in the 0600 config file.
    const add = (name: string, secret: string) => {
      const s = runInPty(['profile', 'add', name, '--env', env, '--base-url', 'https://api.example.com/api/v1/partner'], { ...home.env, DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: undefined }, 20_000, 100);
      return (async () => {
        await s.waitFor('API key (hidden; empty to skip)');
        s.type(`sk_test_typed_key_0001${KEYS.enter}`);
        await s.waitFor('Webhook secret (hidden; empty to skip)');
        s.type(`${secret}${KEYS.enter}`);
        return s.done;
      })();
    };
    const typed = await add('hooks', 'whsec_typed_secret_0001');
    expect(typed.code, typed.output).toBe(0);
    expect(typed.output).not.toContain('whsec_typed_secret_0001');
    expect(typed.output).toContain('webhook secret stored in the config file');
    const file = config(home.configDir) as { profiles: Record<string, { webhookSecret?: string }> };
    expect(file.profiles.hooks!.webhookSecret).toBe('whsec_typed_secret_0001');
    expect(statSync(join(home.configDir, 'config.json')).mode & 0o777).toBe(0o600);
    const skipped = await add('plain', '');
    expect(skipped.code, skipped.output).toBe(0);
    expect((config(home.configDir) as typeof file).profiles.plain!.webhookSecret).toBeUndefined();
  });

  it('refuses plain http off loopback and a path without /api/v1/partner, suggesting the URL meant', async () => {
    const home = tempHome();
    const http = await runMain(['profile', 'add', 'live', '--env', 'production', '--base-url', 'http://api.example.com/api/v1/partner', '--api-key-stdin'], { env: home.env, stdin: 'sk_live_x\n' });
    expect(http.code).toBe(2);
    expect(http.stderr).toContain('hint: use https://api.example.com/api/v1/partner');
    const path = await runMain(['profile', 'add', 'live', '--env', 'production', '--base-url', 'https://api.example.com/', '--api-key-stdin'], { env: home.env, stdin: 'sk_live_x\n' });
    expect(path.code).toBe(2);
    expect(path.stderr).toContain('hint: did you mean https://api.example.com/api/v1/partner?');
    // The same check for a base URL from the environment: nothing is sent.
    const env = await runMain(['tx', 'list'], { env: { ...home.env, OFFRAMP_API_KEY: 'k', OFFRAMP_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('does not end in /api/v1/partner');
  });
});
