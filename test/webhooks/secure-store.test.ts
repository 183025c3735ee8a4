// A store only its owner trusts (as ssh treats its keys): created 0600 in a directory the
// CLI creates 0700; a store or directory owned by someone else, or writable by group or
// others, or a symbolic link, is refused before listening, with a one-line reason.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRoot, NOBODY } from '../helpers/root.js';
import { runMain } from '../helpers/main.js';
import { killListeners, listenInProcess, startListener } from '../helpers/listener.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { sign } from '../../src/lib/webhooks/signature.js';
import { formatStoredLine } from '../../src/lib/webhooks/store.js';

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

describe('the default store is in the private state directory', { timeout: 30_000 }, () => {
  it('a listener started from a sticky, world-writable directory works, advising no chmod', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'offramp-sticky-'));
    chmodSync(shared, 0o1777);
    const home = tempHome();
    const state = join(home.dir, 'xdg-state');
    const listener = startListener([], { ...home.env, ...env, XDG_STATE_HOME: state }, shared);
    const url = await listener.url;
    const store = join(state, 'offramp', 'webhooks.ndjson');
    expect(listener.stderr()).toContain(`Storing new events in ${store} (created, mode 0600)`);
    const body = JSON.stringify({ id: 'evt-sticky-1', type: 'transaction.created', data: { id: 'tx-1', status: 'awaiting_deposit' } });
    const answer = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-webhook-signature': sign(body, SECRET) } });
    expect(answer.status).toBe(200);
    const stopped = await listener.stop();
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).not.toContain('chmod');
    expect(statSync(join(state, 'offramp')).mode & 0o777).toBe(0o700);
    expect(readFileSync(store, 'utf8')).toContain('"id":"evt-sticky-1"');
    expect(existsSync(join(shared, 'webhooks.ndjson'))).toBe(false);

    // Without XDG_STATE_HOME: ~/.local/state/offramp.
    const plain = startListener([], { ...home.env, ...env }, shared);
    await plain.url;
    expect(plain.stderr()).toContain(`Storing new events in ${join(home.dir, '.local', 'state', 'offramp', 'webhooks.ndjson')} (created, mode 0600)`);
    await plain.stop();
  });

  it('a store at the old default place is named once, with the command that moves it; resend, verify and conform read the new default', async () => {
    const work = privateDir();
    const home = tempHome();
    const body = JSON.stringify({ id: 'evt-old-1', type: 'transaction.created', data: { id: 'tx-1' } });
    const line = formatStoredLine({ body: Buffer.from(body), receivedAt: new Date(), scheme: 'hmac-sha256-hex', signature: sign(body, SECRET), id: 'evt-old-1', type: 'transaction.created' });
    writeFileSync(join(work, 'webhooks.ndjson'), `${line}\n`, { mode: 0o600 });
    const store = join(home.dir, '.local', 'state', 'offramp', 'webhooks.ndjson');
    const moveCommand = `mkdir -p -m 700 ${join(home.dir, '.local', 'state', 'offramp')} && mv -n ${join(work, 'webhooks.ndjson')} ${store}`;

    // The readers find nothing at the new place and say where the old store is.
    const verifyOld = await runCli(['webhooks', 'verify', '--from-store'], { cwd: work, env: { ...home.env, ...env } });
    expect(verifyOld.code).toBe(2);
    expect(verifyOld.stderr).toContain(`error: USAGE: ${store} (the store \`webhooks listen\` writes by default): no such file`);
    expect(verifyOld.stderr).toContain(moveCommand);

    // The listener makes nothing until it is moved: after, the move it names would do nothing.
    const first = await runCli(['webhooks', 'listen', '--port', '0'], { cwd: work, env: { ...home.env, ...env } });
    expect(first.code).toBe(2);
    expect(first.stderr).toContain(`error: USAGE: ${join(work, 'webhooks.ndjson')} is a store at the old default place (the working directory); the default is now ${store}. To keep using its events there: ${moveCommand}`);
    expect(first.stderr).toContain('hint: or keep it where it is: offramp webhooks listen --store webhooks.ndjson');
    expect(existsSync(store)).toBe(false);
    // Nothing lost: the old store is as it was; moved as told, every listener and reader finds it.
    expect(readFileSync(join(work, 'webhooks.ndjson'), 'utf8')).toBe(`${line}\n`);
    expect(spawnSync('sh', ['-c', moveCommand]).status).toBe(0);
    const again = startListener([], { ...home.env, ...env }, work);
    await again.url;
    expect(again.stderr()).not.toContain('old default place');
    expect(again.stderr()).toContain('(1 events already in it count as received)');
    await again.stop();
    const verified = await runCli(['webhooks', 'verify', '--from-store', '--event', 'evt-old-1'], { env: { ...home.env, ...env } });
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toContain('valid: the signature matches');
  });
});
