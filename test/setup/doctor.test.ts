// offramp doctor, in process (main → command → client): all green against the emulator;
// a rejected key, an unreachable service and a loose config file are each reported.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => {
  emu = await emulatorFor();
});
afterAll(() => emu.close());

type Check = { name: string; status: string; detail: string };
const byName = (stdout: string) => Object.fromEntries((JSON.parse(stdout) as Check[]).map((c) => [c.name, c]));

describe('offramp doctor', () => {
  it('passes against the emulator, warning only about the missing webhook secret', async () => {
    const r = await runMain(['doctor', '--json'], { env: emu.env });
    expect(r.code).toBe(0);
    const checks = byName(r.stdout);
    expect(checks.node!.status).toBe('pass');
    expect(checks.reachable!.status).toBe('pass');
    expect(checks['api key']).toMatchObject({ status: 'pass', detail: 'accepted' });
    expect(checks['base url']!.status).toBe('pass');
    expect(checks.clock!.status).toBe('pass');
    // Key and URL from the environment: no profile, so no config file, and doctor makes none.
    expect(checks['config file']).toMatchObject({ status: 'pass', detail: expect.stringMatching(/not created yet/) });
    expect(checks['webhook secret']!.status).toBe('warn');
  });

  it('does not warn about the webhook secret on a local profile, where listen uses the emulator default', async () => {
    const home = tempHome();
    const add = await runMain(['profile', 'add', 'dev', '--env', 'local', '--base-url', emu.emulator.url, '--api-key-stdin'], { env: home.env, stdin: `${TEST_KEY}\n` });
    expect(add.code, add.stderr).toBe(0);
    const r = await runMain(['doctor', '--json'], { env: home.env });
    expect(r.code, r.stderr).toBe(0);
    expect(byName(r.stdout)['webhook secret']).toEqual({ name: 'webhook secret', status: 'pass', detail: "the emulator's default (local profile; webhooks listen/verify use it)" });
    expect(r.stdout).not.toContain('whsec_');
  });

  it('fails (exit 8) on a rejected key, without printing it', async () => {
    const r = await runMain(['doctor'], { env: { ...emu.env, OFFRAMP_API_KEY: 'sk_test_wrong_key_999' } });
    expect(r.code).toBe(8);
    expect(r.stdout).toMatch(/fail\s+api key\s+rejected \(401\)/);
    expect(r.stdout + r.stderr).not.toContain('sk_test_wrong_key_999');
    expect(r.stderr).toMatch(/error: CHECK_FAILED: 1 check failed: api key/);
  });

  it('fails when the service cannot be reached', async () => {
    const r = await runMain(['doctor', '--json', '--retries', '0'], { env: { ...emu.env, OFFRAMP_BASE_URL: 'http://127.0.0.1:1/api/v1/partner' } });
    expect(r.code).toBe(8);
    expect(byName(r.stdout).reachable).toMatchObject({ status: 'fail' });
  });

  it('warns about a config file other users can read, and a plain-http remote base URL fails', async () => {
    const home = tempHome();
    mkdirSync(home.configDir, { recursive: true });
    const file = join(home.configDir, 'config.json');
    writeFileSync(file, JSON.stringify({ current: 'x', profiles: { x: { env: 'staging', baseUrl: 'http://staging.invalid/api/v1/partner', apiKey: 'sk_x_123456789' } } }));
    chmodSync(file, 0o644);
    const r = await runMain(['doctor', '--json', '--retries', '0', '--timeout', '2000'], { env: home.env });
    const checks = byName(r.stdout);
    expect(checks['config file']).toMatchObject({ status: 'warn' });
    expect(checks['config file']!.detail).toMatch(/0644/);
    // The base URL is refused wherever it comes from, before any request: the profile fails.
    expect(checks['profile']).toMatchObject({ status: 'fail' });
    expect(checks['profile']!.detail).toMatch(/is plain http: the API key would cross the network in clear — use https:\/\/staging\.invalid\/api\/v1\/partner/);
    expect(r.code).toBe(8);
  });
});
