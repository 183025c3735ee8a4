// 2xx means stored: a write that fails (disk full, I/O error) answers 503 and leaves no part
// of its line; the store reads line by line afterwards and holds every acknowledged id; a
// torn tail left by a crash is set aside at start, never merged with the next event. The
// failures are injected through the store's file seam (always possible), and made real on
// a small tmpfs when this machine lets us mount one.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../src/lib/webhooks/signature.js';
import { startReceiver, type Receiver } from '../../src/lib/webhooks/receiver.js';
import { formatStoredLine, parseStoredLine, type StoreFile } from '../../src/lib/webhooks/store.js';
import { killListeners, startListener } from '../helpers/listener.js';
import { mountTmpfs, unmount } from '../helpers/tmpfs.js';

const SECRET = 'whsec_durability_7d21';

const event = (id: string, type = 'transaction.created', pad = 0) => JSON.stringify({ id, type, data: { id: 'tx-durable', note: 'x'.repeat(pad) } });

async function post(url: string, body: string): Promise<number> {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-webhook-signature': sign(body, SECRET) } });
  await res.arrayBuffer();
  return res.status;
}

const tmpStore = () => join(mkdtempSync(join(tmpdir(), 'offramp-durable-')), 'events.ndjson');

/** Every line of the store, each parsed on its own: throws on a line that is not whole JSON. */
function storedIds(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  expect(text === '' || text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const parsed = parseStoredLine(line);
      expect(parsed, `a whole event line: ${line.slice(0, 80)}`).toBeDefined();
      return parsed!.id;
    });
}

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

/** A store file whose `failAt`-th write puts half its bytes on disk, then fails. */
function failingWrites(failAt: Set<number>, opts: { whole?: boolean; truncateFails?: number } = {}) {
  let writes = 0;
  let truncateFailures = opts.truncateFails ?? 0;
  return (file: StoreFile): StoreFile => ({
    async write(buffer, offset, length) {
      if (failAt.has(++writes)) {
        await file.write(buffer, offset, opts.whole ? length : Math.max(1, Math.floor(length / 2)));
        throw opts.whole ? Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }) : enospc();
      }
      return file.write(buffer, offset, length);
    },
    datasync: () => file.datasync(),
    async truncate(length) {
      if (truncateFailures > 0) {
        truncateFailures--;
        throw Object.assign(new Error('EIO: i/o error, ftruncate'), { code: 'EIO' });
      }
      return file.truncate(length);
    },
    close: () => file.close(),
  });
}

const opened: Receiver[] = [];
afterEach(async () => {
  killListeners();
  await Promise.all(opened.splice(0).map((r) => r.close()));
});

async function receiver(storePath: string, wrapFile?: (file: StoreFile) => StoreFile) {
  const r = await startReceiver({ secret: SECRET, storePath, ...(wrapFile ? { storeOptions: { wrapFile } } : {}) });
  opened.push(r);
  return r;
}

describe('the store under failing writes (injected)', () => {
  it('a write that fails halfway answers 503 for its batch, leaves no partial line, and later events are whole', async () => {
    const store = tmpStore();
    const r = await receiver(store, failingWrites(new Set([3])));
    expect(await post(r.url, event('first'))).toBe(200);
    // Concurrent deliveries: one batch fails (disk full halfway), the others go through.
    const ids = Array.from({ length: 24 }, (_, i) => `burst-${i}`);
    const answers = await Promise.all(ids.map((id) => post(r.url, event(id, 'deposit.detected', 300))));
    const acked = ['first', ...ids.filter((_, i) => answers[i] === 200)];
    const refused = ids.filter((_, i) => answers[i] !== 200);
    expect(refused.length).toBeGreaterThan(0);
    expect(answers.every((a) => a === 200 || a === 503)).toBe(true);

    const onDisk = storedIds(store);
    expect(onDisk.sort()).toEqual([...acked].sort());
    expect(r.stats).toMatchObject({ storeFailures: refused.length, stored: acked.length });

    // The service retries what was refused: stored now, each once.
    expect((await Promise.all(refused.map((id) => post(r.url, event(id, 'deposit.detected', 300))))).every((a) => a === 200)).toBe(true);
    expect(storedIds(store).sort()).toEqual(['first', ...ids].sort());
  });

  it('a write that reached the disk but reported an error is cut back too (the event is not acknowledged)', async () => {
    const store = tmpStore();
    const r = await receiver(store, failingWrites(new Set([2]), { whole: true }));
    expect(await post(r.url, event('a'))).toBe(200);
    expect(await post(r.url, event('b'))).toBe(503);
    expect(storedIds(store)).toEqual(['a']);
    expect(await post(r.url, event('b'))).toBe(200);
    expect(storedIds(store)).toEqual(['a', 'b']);
  });

  it('copies waiting on a first copy whose write failed: one of them stores the event, the others are duplicates of it', async () => {
    const store = tmpStore();
    const r = await receiver(store, failingWrites(new Set([1])));
    // The first copy's write fails halfway; the three copies that arrived meanwhile wait for it.
    const answers = await Promise.all([1, 2, 3, 4].map(() => post(r.url, event('redelivered'))));
    expect(answers.filter((a) => a === 503)).toHaveLength(1);
    expect(answers.filter((a) => a === 200)).toHaveLength(3);
    expect(storedIds(store)).toEqual(['redelivered']);
    expect(r.stats).toMatchObject({ storeFailures: 1, stored: 1, duplicates: 2 });
  });

  it('while a partial line cannot be cut, nothing more is written; the next batch cuts it first', async () => {
    const store = tmpStore();
    const r = await receiver(store, failingWrites(new Set([2]), { truncateFails: 2 }));
    expect(await post(r.url, event('a'))).toBe(200);
    // Fails halfway and the cut fails: the fragment is still there.
    expect(await post(r.url, event('b', 'deposit.detected', 200))).toBe(503);
    expect(readFileSync(store, 'utf8').endsWith('\n')).toBe(false);
    // The next batch tries the cut first, fails again: refused without writing.
    expect(await post(r.url, event('c'))).toBe(503);
    // Now the cut works: the fragment goes, then the event is written whole.
    expect(await post(r.url, event('c'))).toBe(200);
    expect(storedIds(store)).toEqual(['a', 'c']);
  });
});

describe('a store left by a crash', () => {
  it('sets a torn last line aside in FILE.torn-<time>, cuts it, and keeps every whole line', async () => {
    const store = tmpStore();
    const whole = ['w1', 'w2'].map((id) =>
      formatStoredLine({ body: Buffer.from(event(id)), receivedAt: new Date('2026-11-23T10:00:00Z'), scheme: 'hmac-sha256-hex', signature: sign(event(id), SECRET), id, type: 'transaction.created' }),
    );
    const torn = formatStoredLine({ body: Buffer.from(event('t')), receivedAt: new Date(), scheme: 'hmac-sha256-hex', signature: 'x', id: 't', type: 'transaction.created' }).slice(0, 70);
    writeFileSync(store, `${whole.join('\n')}\n${torn}`, { mode: 0o600 });

    const r = await receiver(store);
    expect(r.loaded).toMatchObject({ events: 2, tornBytes: Buffer.byteLength(torn) });
    expect(r.loaded!.tornPath).toMatch(/events\.ndjson\.torn-\d{8}T\d{6}Z$/);
    expect(readFileSync(r.loaded!.tornPath!, 'utf8')).toBe(torn);
    // The event the crash interrupted is redelivered: it starts a line of its own.
    expect(await post(r.url, event('t'))).toBe(200);
    expect(storedIds(store)).toEqual(['w1', 'w2', 't']);
  });

});

describe('a real disk full (tmpfs)', { timeout: 20_000 }, () => {
  it('never acknowledges an event without its whole line; a restart reads every acknowledged one', async (ctx) => {
    const mnt = join(mkdtempSync(join(tmpdir(), 'offramp-tmpfs-')), 'mnt');
    mkdirSync(mnt, { mode: 0o700 });
    const refused = mountTmpfs(mnt);
    if (refused) ctx.skip(refused);
    try {
      const store = join(mnt, 'events.ndjson');
      const listener = startListener(['--store', store, '-o', 'ndjson'], { OFFRAMP_WEBHOOK_SECRET: SECRET });
      const url = await listener.url;
      const answers = new Map<string, number>();
      // Large events fill the disk; small ones after a refusal may still fit, and must be whole.
      for (let i = 0; i < 40 && [...answers.values()].filter((a) => a === 503).length < 4; i++) {
        const id = `big-${i}`;
        answers.set(id, await post(url, event(id, 'deposit.detected', 5000)));
        const small = `small-${i}`;
        answers.set(small, await post(url, event(small)));
      }
      const stopped = await listener.stop();
      expect(stopped.code).toBe(130);
      const acked = [...answers].filter(([, a]) => a === 200).map(([id]) => id);
      const failed = [...answers].filter(([, a]) => a === 503).map(([id]) => id);
      expect(failed.length).toBeGreaterThan(0);
      expect([...answers.values()].every((a) => a === 200 || a === 503)).toBe(true);
      expect(storedIds(store).sort()).toEqual(acked.sort());
      expect(stopped.stderr).toContain(`${failed.length} not stored (answered 503)`);
      expect(stopped.stdout).toMatch(/"http_status":503.*not stored: ENOSPC/);

      // A restart on the full disk: no torn line, every acknowledged id counts as received.
      const again = startListener(['--store', store], { OFFRAMP_WEBHOOK_SECRET: SECRET });
      await again.url;
      expect(again.stderr()).toContain(`(${acked.length} events already in it count as received)`);
      expect(again.stderr()).not.toContain('partial line');
      expect(await post(await again.url, event(acked[0]!))).toBe(200);
      expect((await again.stop()).stderr).toContain('duplicates 1');
      expect(readdirSync(mnt).filter((f) => f.includes('.torn-'))).toEqual([]);
    } finally {
      unmount(mnt);
    }
  });
});
