// One listener per store: a second `webhooks listen` on a store another live listener holds
// is refused (exit 5, one line naming the holder) before it reads or cuts anything, while
// the first goes on storing; a lock left by a listener killed outright is taken over.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../src/lib/webhooks/signature.js';
import { runMain } from '../helpers/main.js';
import { killListeners, startListener } from '../helpers/listener.js';

const SECRET = 'whsec_store_lock_3e9a';
const env = { OFFRAMP_WEBHOOK_SECRET: SECRET };

afterEach(() => killListeners());

const event = (id: string) => JSON.stringify({ id, type: 'transaction.created', data: { id: 'tx-lock' } });

async function post(url: string, id: string): Promise<number> {
  const body = event(id);
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-webhook-signature': sign(body, SECRET) } });
  await res.arrayBuffer();
  return res.status;
}

const storedIds = (store: string) => readFileSync(store, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).id as string);

/** A process id that no process has: one of a child that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('one listener per store', { timeout: 20_000 }, () => {
  it('refuses a second listener on a store in use, before touching it; the first goes on; the lock goes with the first', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'offramp-lock-')), 'hooks.ndjson');
    const first = startListener(['--store', store], env);
    const url = await first.url;
    expect(await post(url, 'evt-1')).toBe(200);
    const lock = readFileSync(`${store}.lock`, 'utf8').trim();
    expect(Number(lock)).toBeGreaterThan(0);
    // A partial line as if the first were mid-write: the refused one must not cut it.
    writeFileSync(store, '{"v":2,"id":"in-fli', { flag: 'a' });
    const before = readFileSync(store, 'utf8');

    const second = await runMain(['webhooks', 'listen', '--port', '0', '--store', store], { env });
    expect(second.code).toBe(5);
    expect(second.stdout).toBe('');
    const [line, ...rest] = second.stderr.trimEnd().split('\n');
    expect(line).toBe(`error: STORE_IN_USE: the store ${store} is in use by another listener (process ${lock})`);
    expect(rest.every((l) => l.startsWith('hint:'))).toBe(true);
    expect(readFileSync(store, 'utf8')).toBe(before);
    expect(readdirSync(dirname(store)).filter((name) => name.includes('.torn-'))).toEqual([]);

    writeFileSync(store, before.slice(0, before.lastIndexOf('\n') + 1));
    expect(await post(url, 'evt-2')).toBe(200);
    expect((await first.stop()).code).toBe(130);
    expect(existsSync(`${store}.lock`)).toBe(false);
    expect(storedIds(store)).toEqual(['evt-1', 'evt-2']);

    const third = startListener(['--store', store], env);
    expect(await post(await third.url, 'evt-1')).toBe(200);
    expect((await third.stop()).code).toBe(130);
    expect(storedIds(store)).toEqual(['evt-1', 'evt-2']);
  });

  it('takes over a lock whose process is gone, and says so', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'offramp-lock-')), 'hooks.ndjson');
    const gone = deadPid();
    writeFileSync(`${store}.lock`, `${gone}\n`, { mode: 0o600 });
    const listener = startListener(['--store', store], env);
    const url = await listener.url;
    expect(listener.stderr()).toContain(`note: the store's lock was left by process ${gone}, which no longer runs`);
    expect(await post(url, 'evt-after')).toBe(200);
    expect(Number(readFileSync(`${store}.lock`, 'utf8'))).not.toBe(gone);
    expect((await listener.stop()).code).toBe(130);
    expect(storedIds(store)).toEqual(['evt-after']);
  });
});

