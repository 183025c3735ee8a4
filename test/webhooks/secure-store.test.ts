// A store only its owner trusts (as ssh treats its keys): created 0600 in a directory the
// CLI creates 0700; a store or directory owned by someone else, or writable by group or
// others, or a symbolic link, is refused before listening, with a one-line reason.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRoot, NOBODY } from '../helpers/root.js';
import { runMain } from '../helpers/main.js';
import { killListeners, listenInProcess } from '../helpers/listener.js';

const SECRET = 'whsec_secure_store_51c0';
const env = { OFFRAMP_WEBHOOK_SECRET: SECRET };

afterEach(() => killListeners());

const privateDir = () => mkdtempSync(join(tmpdir(), 'offramp-secure-'));

async function refused(args: string[]) {
  const r = await runMain(['webhooks', 'listen', '--port', '0', ...args], { env });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const [first, ...rest] = r.stderr.trimEnd().split('\n');
  // One line says what is wrong, a hint says what to do; nothing else (no stack).
  expect(rest.every((l) => l.startsWith('hint:'))).toBe(true);
  expect(r.stderr).not.toContain('    at ');
  return first!;
}

describe('the listener’s store is its owner’s alone', { timeout: 20_000 }, () => {
  it('creates a missing directory 0700 and the store 0600', async () => {
    const store = join(privateDir(), 'state', 'offramp', 'hooks.ndjson');
    const listener = listenInProcess(['--store', store], env);
    await listener.url;
    expect(listener.stderr()).toContain(`Storing new events in ${store} (created, mode 0600)`);
    expect((await listener.stop()).code).toBe(130);
    expect(statSync(store).mode & 0o777).toBe(0o600);
    expect(statSync(join(store, '..')).mode & 0o777).toBe(0o700);
    expect(statSync(join(store, '..', '..')).mode & 0o777).toBe(0o700);
  });

  it('refuses a store writable by its group or by others', async () => {
    const store = join(privateDir(), 'hooks.ndjson');
    writeFileSync(store, '');
    chmodSync(store, 0o664);
    expect(await refused(['--store', store])).toBe(`error: INSECURE_PATH: refusing the store ${store}: it is writable by its group (mode 0664)`);
    chmodSync(store, 0o646);
    expect(await refused(['--store', store])).toContain('is writable by other users (mode 0646)');
  });

  it('refuses a store in a directory others can write (they could replace it)', async () => {
    const dir = privateDir();
    chmodSync(dir, 0o777);
    const first = await refused(['--store', join(dir, 'hooks.ndjson')]);
    expect(first).toBe(`error: INSECURE_PATH: refusing the store ${join(dir, 'hooks.ndjson')}: ${dir} is writable by its group and other users (mode 0777)`);
  });

  it.runIf(isRoot)('refuses a store owned by another user (one that could have planted events)', async () => {
    const store = join(privateDir(), 'hooks.ndjson');
    writeFileSync(store, '{"v":2,"id":"planted"}\n', { mode: 0o600 });
    chownSync(store, NOBODY, NOBODY);
    expect(await refused(['--store', store])).toBe(`error: INSECURE_PATH: refusing the store ${store}: it is owned by another user (uid ${NOBODY}), not by you (uid 0)`);
    // resend reads a store under the same rule: it would sign whatever is in it.
    const resend = await runMain(['webhooks', 'resend', '--from-store', store, '--to', 'http://127.0.0.1:9/'], { env });
    expect(resend.code).toBe(2);
    expect(resend.stderr).toContain('is owned by another user');
  });

  it.runIf(isRoot)('refuses a directory owned by another user', async () => {
    const dir = join(privateDir(), 'theirs');
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, NOBODY, NOBODY);
    expect(await refused(['--store', join(dir, 'hooks.ndjson')])).toContain(`${dir} is owned by another user (uid ${NOBODY})`);
  });

  it('refuses a symbolic link', async () => {
    const dir = privateDir();
    writeFileSync(join(dir, 'real.ndjson'), '', { mode: 0o600 });
    symlinkSync(join(dir, 'real.ndjson'), join(dir, 'link.ndjson'));
    expect(await refused(['--store', join(dir, 'link.ndjson')])).toContain('is a symbolic link');
  });
});
