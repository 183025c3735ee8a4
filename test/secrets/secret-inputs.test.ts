// Secrets never need a flag: each secret flag has a variable and a NAME_FILE variant (the
// file's content, trimmed, as Docker and Kubernetes mount secrets), and a secret typed as a
// flag is answered with one warning line: other local users can read it in the process list.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../../src/lib/webhooks/signature.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => {
  emu = await emulatorFor({ apiKeys: [TEST_KEY], adminToken: 'file-admin-token-1234' });
});
afterAll(() => emu.close());

const dir = mkdtempSync(join(tmpdir(), 'offramp-secret-files-'));
const secretFile = (name: string, content: string, mode = 0o600) => {
  const path = join(dir, name);
  writeFileSync(path, content, { mode });
  chmodSync(path, mode); // whatever the umask
  return path;
};
const BASE = () => ({ OFFRAMP_BASE_URL: emu.env.OFFRAMP_BASE_URL });

describe('NAME_FILE variables', () => {
  it('OFFRAMP_API_KEY_FILE: the key, trimmed, redacted; no warning', async () => {
    const r = await runMain(['tx', 'list', '--json', '--verbose'], { env: { ...BASE(), OFFRAMP_API_KEY_FILE: secretFile('key', `  ${TEST_KEY}\n`) } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain(TEST_KEY);
    expect(r.stderr).not.toContain('warning');
  });

  it('OFFRAMP_WEBHOOK_SECRET_FILE: what webhooks verify checks with', async () => {
    const body = JSON.stringify({ id: '5d0e0000-0000-4000-8000-00000000007b', type: 'deposit.detected', data: {} });
    const r = await runMain(['webhooks', 'verify', '--signature', sign(body, 'whsec_from_a_file'), '--json'], { stdin: body, env: { OFFRAMP_WEBHOOK_SECRET_FILE: secretFile('whsec', 'whsec_from_a_file\n') } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ valid: true });
  });

  it('OFFRAMP_EMULATOR_ADMIN_TOKEN_FILE: what the control commands send', async () => {
    const refused = await runMain(['emulator', 'clock', 'advance', '1m'], { env: emu.env });
    expect(refused.code).not.toBe(0);
    const ok = await runMain(['emulator', 'clock', 'advance', '1m', '--verbose'], { env: { ...emu.env, OFFRAMP_EMULATOR_ADMIN_TOKEN_FILE: secretFile('admin', 'file-admin-token-1234\n') } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout + ok.stderr).not.toContain('file-admin-token-1234');
  });

  it('a missing or empty file, or both forms set: exit 2 naming the variable, never the content', async () => {
    const missing = await runMain(['tx', 'list'], { env: { ...BASE(), OFFRAMP_API_KEY_FILE: join(dir, 'nope') } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`OFFRAMP_API_KEY_FILE: cannot read ${join(dir, 'nope')} (ENOENT)`);
    const empty = await runMain(['tx', 'list'], { env: { ...BASE(), OFFRAMP_API_KEY_FILE: secretFile('empty', ' \n') } });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('OFFRAMP_API_KEY_FILE: ');
    expect(empty.stderr).toContain('is empty');
    const both = await runMain(['tx', 'list'], { env: { ...BASE(), OFFRAMP_API_KEY: TEST_KEY, OFFRAMP_API_KEY_FILE: secretFile('both', 'sk_test_other_key') } });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('OFFRAMP_API_KEY and OFFRAMP_API_KEY_FILE are both set');
    expect(both.stderr).not.toContain('sk_test_other_key');
  });

  it('completion and its TAB-time words read no secret: a NAME_FILE that cannot be read does not break them', async () => {
    const env = { OFFRAMP_API_KEY_FILE: join(dir, 'nope'), OFFRAMP_WEBHOOK_SECRET_FILE: secretFile('blank', '\n') };
    const script = await runMain(['completion', 'bash'], { env });
    expect(script.code, script.stderr).toBe(0);
    expect(script.stdout).toContain('__complete profiles');
    expect(script.stderr).toBe('');
    const words = await runMain(['__complete', 'profiles'], { env });
    expect(words.code, words.stderr).toBe(0);
    expect(words.stderr).toBe('');
    // Every other command still refuses it, before any request.
    const list = await runMain(['profile', 'list'], { env });
    expect(list.code).toBe(2);
    expect(list.stderr).toContain('OFFRAMP_API_KEY_FILE: cannot read');
  });
});

describe('secrets from the environment', () => {
  it('the admin token is redacted like the key: a token pasted where an ID goes is not echoed', async () => {
    const token = 'admin-token-from-env-5678';
    const r = await runMain(['tx', 'get', token], { env: { ...BASE(), OFFRAMP_API_KEY: TEST_KEY, OFFRAMP_EMULATOR_ADMIN_TOKEN: token } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ID "***" is not a UUID');
    expect(r.stderr).not.toContain(token);
  });
});

describe('a NAME_FILE others could write', () => {
  const body = JSON.stringify({ id: '5d0e0000-0000-4000-8000-00000000007c', type: 'deposit.detected', data: {} });

  it.skipIf(process.platform === 'win32')('is refused: one error line naming the variable, never the content; nothing verified', async () => {
    const file = secretFile('whsec-shared', 'whsec_forgeable\n', 0o664);
    const r = await runMain(['webhooks', 'verify', '--signature', sign(body, 'whsec_forgeable')], { stdin: body, env: { OFFRAMP_WEBHOOK_SECRET_FILE: file } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toEqual([`error: INSECURE_PATH: refusing OFFRAMP_WEBHOOK_SECRET_FILE: ${file} is writable by its group (mode 0664)`]);
    expect(r.stderr).toContain(`hint: chmod go-w ${file}`);
    expect(r.stderr).not.toContain('whsec_forgeable');
  });

  it('a file others may read but not write (0644, as Docker and Kubernetes mount secrets) is used', async () => {
    const file = secretFile('whsec-0644', 'whsec_mounted\n', 0o644);
    const r = await runMain(['webhooks', 'verify', '--signature', sign(body, 'whsec_mounted'), '--json'], { stdin: body, env: { OFFRAMP_WEBHOOK_SECRET_FILE: file } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ valid: true });
  });
});

describe('a secret typed as a flag', () => {
  const WARNING = (flag: string, variable: string) => `warning: ${flag} is visible to other processes and kept in shell history; use ${variable} or ${variable}_FILE`;

  it('--api-key works, with one warning line', async () => {
    const r = await runMain(['--api-key', TEST_KEY, 'tx', 'list', '--json'], { env: BASE() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([WARNING('--api-key', 'OFFRAMP_API_KEY')]);
  });

  it('--secret and --admin-token warn the same way; the same secrets from the environment do not', async () => {
    const body = '{}';
    const flagged = await runMain(['webhooks', 'verify', '--secret', 'whsec_typed', '--signature', sign(body, 'whsec_typed')], { stdin: body });
    expect(flagged.stderr).toContain(WARNING('--secret', 'OFFRAMP_WEBHOOK_SECRET'));
    const quiet = await runMain(['webhooks', 'verify', '--signature', sign(body, 'whsec_typed')], { stdin: body, env: { OFFRAMP_WEBHOOK_SECRET: 'whsec_typed' } });
    expect(quiet.stderr).not.toContain('warning');
    const token = await runMain(['emulator', 'clock', 'advance', '1m', '--admin-token', 'file-admin-token-1234'], { env: emu.env });
    expect(token.code, token.stderr).toBe(0);
    expect(token.stderr).toContain(WARNING('--admin-token', 'OFFRAMP_EMULATOR_ADMIN_TOKEN'));
  });
});
