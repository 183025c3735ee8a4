// The state file (`statePath`, `--state`): what comes back after a stop, that a change is
// journaled before its answer, what is refused whole (a damaged file, another version's,
// one another user could have written, one in use by another emulator), that no temporary
// file outlives a fold, and a full disk answered 503. (Restarts of the built binary after
// SIGTERM and SIGKILL, torn and damaged journals: state-restart.test.ts.)
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startEmulator, StateFileError, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { isRoot } from '../helpers/root.js';
import { mountTmpfs, unmount } from '../helpers/tmpfs.js';
import { createTx, directBody, eventually, idemKey, KEY, simulate, type Api } from './helpers.js';

const running: RunningEmulator[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(running.splice(0).map((e) => e.close()));
});

function stateDir(): string {
  return mkdtempSync(join(tmpdir(), 'offramp-state-'));
}

/** An emulator on a free port with the helpers' call shape (see helpers.ts). */
async function start(options: EmulatorOptions): Promise<Api> {
  const emu = await startEmulator({ port: 0, webhookRetry: { maxAttempts: 2, baseDelayMs: 5 }, ...options });
  running.push(emu);
  const call = async (method: string, path: string, opts: { body?: unknown; idempotencyKey?: string; key?: string | null } = {}) => {
    const headers: Record<string, string> = { 'x-api-key': opts.key ?? KEY };
    if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(emu.url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
  };
  return {
    emu,
    call,
    get: (path, opts) => call('GET', path, opts as never),
    post: (path, body, opts) => call('POST', path, { ...(opts as object), body }),
    close: () => emu.close(),
  };
}

async function stop(api: Api): Promise<void> {
  await api.close();
  running.splice(running.indexOf(api.emu), 1);
}

describe('a state file', () => {
  it('brings back every partner’s transactions, history, quotes, idempotency keys, events, ledger and the clock offset', async () => {
    const dir = stateDir();
    const file = join(dir, 'emulator.state');
    const other = 'sk_test_state_other';
    const a = await start({ statePath: file, apiKeys: [KEY, other], seedRevenue: 5, seed: 7 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const body = directBody();
    const key = idemKey();
    const created = await a.post('/transactions', body, { idempotencyKey: key });
    expect(created.status).toBe(201);
    const tx = created.body.data;
    for (const event of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) expect((await simulate(a, tx.id, event)).status).toBe(200);
    const quote = (await a.post('/quotes', { crypto_currency: 'usdt', network: 'bep20', crypto_amount: '10' })).body.data;
    const theirs = await createTx(a, {}, other);
    a.emu.advanceClock('2m');
    const window = `from=${new Date(Date.now() - 89 * 86_400_000).toISOString()}&to=${new Date(Date.now() + 86_400_000).toISOString()}`;
    const before = {
      tx: (await a.get(`/transactions/${tx.id}`)).text,
      history: (await a.get(`/transactions/${tx.id}/status-history`)).text,
      events: (await a.get('/webhooks/events?limit=100')).text,
      ledger: (await a.get(`/revenue?${window}&include_summary=true&limit=100`)).text,
    };
    await stop(a);
    expect(existsSync(`${file}.lock`)).toBe(false);

    const b = await start({ statePath: file, apiKeys: [KEY, other], seedRevenue: 5, seed: 99 });
    expect((await b.get(`/transactions/${tx.id}`)).text).toBe(before.tx);
    expect((await b.get(`/transactions/${tx.id}/status-history`)).text).toBe(before.history);
    expect((await b.get('/webhooks/events?limit=100')).text).toBe(before.events);
    // The seeded ledger is the one saved (another seed would have drawn other rows).
    expect((await b.get(`/revenue?${window}&include_summary=true&limit=100`)).text).toBe(before.ledger);
    // The idempotency key replays the first answer byte for byte.
    const replay = await b.post('/transactions', body, { idempotencyKey: key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(created.text);
    // The quote is still known (and, 2 minutes on, expired).
    expect((await b.post('/transactions', directBody({ quote_id: quote.quote_id, fiat_amount: undefined, crypto_currency: undefined, network: undefined }), { idempotencyKey: idemKey() })).body.error.message).toMatch(/expired/);
    expect((await b.get(`/transactions/${theirs.id}`, { key: other })).status).toBe(200);
    expect(b.emu.summary()).toMatchObject({ partners: 2, transactions: 2, clock_offset_ms: 120_000 });
  });

  it('journals each change before its answer, the changes of one moment in one write', async () => {
    const dir = stateDir();
    const file = join(dir, 's.state');
    const a = await start({ statePath: file });
    // Two changes in the same turn: one write, holding the clock as it ended.
    a.emu.advanceClock(1000);
    a.emu.advanceClock(1000);
    const tx = await createTx(a);
    // The answer came: the create is in the journal already, with its stored answer.
    const segment = readdirSync(dir).find((name) => name.startsWith('s.state.journal.'))!;
    const lines = readFileSync(join(dir, segment), 'utf8').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\{"k":"header","format":"offramp-emulator-state","format_version":2,.*"segment":\d+\}$/);
    expect(lines[1]).toBe('{"k":"clock","offset_ms":2000}');
    expect(lines[2]).toMatch(/^\{"k":"commit","lines":1,"crc32":\d+\}$/);
    expect(lines.slice(3).join('\n')).toContain(`"id":"${tx.id}"`);
    expect(lines.slice(3).join('\n')).toContain('"answer_of":{"tx":');
    expect(lines.at(-1)).toMatch(/^\{"k":"commit","lines":\d+,"crc32":\d+\}$/);
    expect(statSync(join(dir, segment)).mode & 0o777).toBe(0o600);
    const health = (await (await fetch(`${a.emu.origin}/__emulator/health`)).json()) as { data: { state_file: Record<string, unknown> } };
    expect(health.data.state_file).toMatchObject({ journal: 'ok', failing_since: null, last_error: null, journal_bytes: statSync(join(dir, segment)).size });
  });

  it('folds into a snapshot while creates go on: the snapshot and the fresh segment, as a crash would leave them, load every answered create', async () => {
    const dir = stateDir();
    const file = join(dir, 's.state');
    const a = await start({ statePath: file, seedRevenue: 2000 });
    const before = await Promise.all(Array.from({ length: 80 }, () => createTx(a)));
    // The fold and more creates at once: those go into a new segment while it is written.
    const [, during] = await Promise.all([a.emu.flush(), Promise.all(Array.from({ length: 30 }, () => createTx(a)))]);
    const after = await createTx(a);
    // The files as they are now, with no stop to fold them again: what a kill would leave.
    const copy = join(stateDir(), 's.state');
    for (const name of readdirSync(dir).filter((n) => n.startsWith('s.state') && !n.endsWith('.lock'))) {
      writeFileSync(join(dirname(copy), name), readFileSync(join(dir, name)), { mode: 0o600 });
    }
    expect(readdirSync(dirname(copy)).filter((n) => n.includes('.journal.'))).toHaveLength(1);
    const b = await start({ statePath: copy });
    for (const tx of [...before, ...during, after]) expect((await b.get(`/transactions/${tx.id}`)).status).toBe(200);
    expect(b.emu.summary()).toMatchObject({ transactions: 111, ledger_rows: 2000 });
  });

  it('as written while it runs (short records and all), loads to the very same state', async () => {
    const dir = stateDir();
    const file = join(dir, 's.state');
    const a = await start({ statePath: file, seedRevenue: 3 });
    const tx = await createTx(a);
    await simulate(a, tx.id, 'deposit.detected');
    await createTx(a);
    await a.post(`/transactions/${tx.id}/cancel`, undefined, { idempotencyKey: 'cancel-1' });
    // Deliveries (to no endpoint) go on failing and retrying in the background: compared
    // before they settle, the live state would have moved past the file.
    await eventually(async () => {
      const events = (await a.get('/webhooks/events?limit=100')).body.data.data as { delivery_status: string }[];
      expect(events.length > 0 && events.every((e) => e.delivery_status === 'failed')).toBe(true);
    });
    await a.emu.flush();
    const text = readFileSync(file, 'utf8');
    // A create's event and stored answer are written short (the document says the rest).
    expect(text).toContain('"body":{"snapshot_of":"tx"}');
    expect(text).toContain('"answer_of":{"tx":');
    const copy = join(dir, 'copy.state');
    writeFileSync(copy, text, { mode: 0o600 });
    const b = await start({ statePath: copy });
    // The records; the header holds the time of the export, which differs from one export to the next.
    const body = (doc: string) => doc.split('\n').filter((l) => !/^\{"k":"header"/.test(l)).join('\n');
    expect(body(b.emu.exportState())).toBe(body(a.emu.exportState()));
  });

  it('starts fresh from a missing or empty file, and writes it 0600', async () => {
    const dir = stateDir();
    const file = join(dir, 'new.state');
    writeFileSync(file, '', { mode: 0o600 });
    const a = await start({ statePath: file });
    expect(a.emu.summary().transactions).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^\{"k":"header"/);
  });

  it.each([
    ['a changed value', (text: string) => text.replace('awaiting_deposit', 'awaiting_depositX'), /is damaged: line 3 v\.answer_of\.status: /],
    ['a missing line', (text: string) => text.split('\n').filter((l) => !l.startsWith('{"k":"event"')).join('\n'), /is damaged: it holds \d+ lines where its end line counts \d+/],
    [
      'another version',
      (text: string) => text.replace(/"offramp_version":"[^"]+"/, '"offramp_version":"0.0.1"'),
      /was written by offramp 0\.0\.1 \(state format 2\); this is offramp .+ which reads only its own: export it with offramp 0\.0\.1 \(offramp emulator state export\) .*or move it aside to start afresh$/,
    ],
    ['an older format', (text: string) => text.replace('"format_version":2', '"format_version":1'), /\(state format 1\); this is offramp .+ \(state format 2\)/],
    ['not a state at all', () => '{"transactions":[]}\n', /is not an offramp emulator state/],
    ['half a first line', (text: string) => text.slice(0, 100), /is not an offramp emulator state/],
    ['a document cut short', (text: string) => text.slice(0, text.indexOf('{"k":"clock"') + 5), /is incomplete: it does not end with its end line/],
    ['a line after the end', (text: string) => `${text}{"k":"tx","p":0,"v":{"seq":2,"id":"half a rec`, /is incomplete: it does not end with its end line/],
  ])('refuses %s whole, with one line saying why, and leaves the file as it is', async (_what, damage, message) => {
    const file = join(stateDir(), 's.state');
    const a = await start({ statePath: file });
    await createTx(a);
    await stop(a);
    const damaged = damage(readFileSync(file, 'utf8'));
    writeFileSync(file, damaged, { mode: 0o600 });
    const failure = await startEmulator({ port: 0, statePath: file }).then(
      (emu) => (running.push(emu), undefined),
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(StateFileError);
    expect((failure as Error).message).toMatch(message);
    expect((failure as Error).message).not.toContain('\n');
    expect(readFileSync(file, 'utf8')).toBe(damaged);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('refuses a file writable by group or others, as ssh does', async () => {
    const file = join(stateDir(), 's.state');
    await stop(await start({ statePath: file }));
    chmodSync(file, 0o620);
    await expect(startEmulator({ port: 0, statePath: file })).rejects.toThrow(/writable by its group \(mode 0620\); refusing it \(chmod go-w /);
    chmodSync(file, 0o644);
    // Readable by others is the user's choice; writable is not.
    const emu = await startEmulator({ port: 0, statePath: file });
    running.push(emu);
  });

  it.runIf(isRoot)('refuses a file owned by another user', async () => {
    const file = join(stateDir(), 's.state');
    await stop(await start({ statePath: file }));
    chownSync(file, 4321, 4321);
    await expect(startEmulator({ port: 0, statePath: file })).rejects.toThrow(/owned by another user \(uid 4321\)/);
  });

  it('is used by one emulator at a time; a lock left by a killed one is taken over', async () => {
    const file = join(stateDir(), 's.state');
    await start({ statePath: file });
    await expect(startEmulator({ port: 0, statePath: file })).rejects.toThrow(/in use by another emulator \(process \d+\)/);
    await closeRunning();
    // A pid that is not running (the highest possible one is never handed out).
    writeFileSync(`${file}.lock`, '4194304\n');
    const again = await startEmulator({ port: 0, statePath: file });
    running.push(again);
    expect(readFileSync(`${file}.lock`, 'utf8').trim()).toBe(String(process.pid));
  });

  it('is written whole at a clean stop, leaving no temporary file; one a killed emulator left is removed', async () => {
    const dir = stateDir();
    const file = join(dir, 's.state');
    // What a kill in the middle of a write leaves (src/lib/fs/stale.ts names it), from a pid that is gone.
    writeFileSync(`${file}.tmp-4194304-0123abcd`, '{"k":"header"', { mode: 0o600 });
    const a = await start({ statePath: file });
    expect(readdirSync(dir).sort()).toEqual(['s.state', 's.state.lock']);
    for (let i = 0; i < 3; i++) await createTx(a);
    await stop(a);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('{"k":"tx"'))).toHaveLength(3);
    expect(lines.filter((l) => l.startsWith('{"k":"end"'))).toHaveLength(1);
    expect(readdirSync(dir)).toEqual(['s.state']);
  });
});

describe('a state file, started again later', () => {
  it('journals as it starts what fell due while it was stopped (an expiry), not at the next fold', async () => {
    const dir = stateDir();
    const file = join(dir, 's.state');
    let now = Date.parse('2026-11-01T10:00:00Z');
    const clock = { now: () => now };
    const a = await start({ statePath: file, clock });
    const tx = await createTx(a);
    await stop(a);
    now += 31 * 60_000;
    const b = await start({ statePath: file, clock });
    const journaled = readdirSync(dir)
      .filter((name) => name.startsWith('s.state.journal.'))
      .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n'));
    expect(journaled.some((line) => line.startsWith('{"k":"tx"') && line.includes(tx.id) && line.includes('"status":"expired"'))).toBe(true);
    await stop(b);
  });
});

describe('a state file on a full disk (tmpfs)', { timeout: 30_000 }, () => {
  it.runIf(process.getuid?.() === 0)('answers 503 for a change it cannot journal, keeps none of it, and takes changes again once there is room', async (ctx) => {
    const mnt = join(stateDir(), 'mnt');
    mkdirSync(mnt, { mode: 0o700 });
    const refused = mountTmpfs(mnt, '256k');
    if (refused) ctx.skip(refused);
    try {
      const file = join(mnt, 's.state');
      const logs: string[] = [];
      // What the emulator delivers: never an event of a change it then undid.
      const delivered = new Set<string>();
      const hooks = createServer((req, res) => {
        let body = '';
        req.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => {
          delivered.add((JSON.parse(body) as { data: { id: string } }).data.id);
          res.end();
        });
      });
      await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
      ctx.onTestFinished(() => new Promise<void>((resolve) => hooks.close(() => resolve())));
      const a = await start({ statePath: file, log: (line) => logs.push(line), webhookUrl: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/` });
      // Most of the disk taken by something else, to be freed later.
      writeFileSync(join(mnt, 'filler'), Buffer.alloc(200 * 1024));
      const acknowledged: string[] = [];
      let refusal;
      while (!refusal && acknowledged.length < 500) {
        const answer = await a.post('/transactions', directBody(), { idempotencyKey: `full-${acknowledged.length}` });
        if (answer.status === 201) acknowledged.push(answer.body.data.id);
        else refusal = answer;
      }
      expect(refusal?.status).toBe(503);
      expect(refusal?.headers.get('retry-after')).toBe('1');
      await vi.waitFor(() => expect(delivered.size).toBe(acknowledged.length), { timeout: 5000, interval: 20 });
      expect([...delivered].sort()).toEqual([...acknowledged].sort());
      expect(refusal?.body).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/cannot write its state file \(.*ENOSPC.*\); nothing was changed, retry later/) } });
      expect(logs.join('\n')).toMatch(/^state file: could not write the journal .*s\.state\.journal\.\d+: ENOSPC/m);
      // Not applied: what was answered 201 is all there is.
      expect(a.emu.summary().transactions).toBe(acknowledged.length);
      const health = async () => ((await (await fetch(`${a.emu.origin}/__emulator/health`)).json()) as { data: { state_file: Record<string, unknown> } }).data.state_file;
      expect(await health()).toMatchObject({ journal: 'failing', failing_since: expect.any(String), last_error: expect.stringMatching(/ENOSPC/) });
      // Refused before anything is done, reads still served.
      expect((await a.post('/transactions', directBody(), { idempotencyKey: 'while-full' })).status).toBe(503);
      expect((await a.get(`/transactions/${acknowledged[0]}`)).status).toBe(200);

      rmSync(join(mnt, 'filler'));
      await vi.waitFor(async () => expect(await health()).toMatchObject({ journal: 'ok', failing_since: null }), { timeout: 5000, interval: 100 });
      // The refused key was never used: it makes its transaction now.
      const retried = await a.post('/transactions', directBody(), { idempotencyKey: `full-${acknowledged.length}` });
      expect(retried.status).toBe(201);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
      await stop(a);
      const b = await start({ statePath: file });
      expect(b.emu.summary().transactions).toBe(acknowledged.length + 1);
      await stop(b);
    } finally {
      unmount(mnt);
    }
  });
});

async function closeRunning(): Promise<void> {
  await Promise.all(running.splice(0).map((e) => e.close()));
}
