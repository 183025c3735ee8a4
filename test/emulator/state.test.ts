// The state file (`statePath`, `--state`): what comes back after a stop, and what is
// refused whole: a damaged file, another version's, one another user could have written,
// one in use by another emulator. (Restarts of the built binary after SIGTERM and SIGKILL:
// state-restart.test.ts.)
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, StateFileError, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { createTx, directBody, eventually, idemKey, KEY, simulate, type Api } from './helpers.js';

const running: RunningEmulator[] = [];
afterEach(async () => {
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

  it('is kept current within a second of a change, without a stop', async () => {
    const file = join(stateDir(), 's.state');
    const a = await start({ statePath: file });
    const tx = await createTx(a);
    await eventually(() => expect(readFileSync(file, 'utf8')).toContain(tx.id), 3000);
    // Only the change is appended: the file starts with the state as it was at start.
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('{"k":"header"'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('{"k":"commit"')).length).toBeGreaterThanOrEqual(2);
  });

  it('as a kill would leave it (appended batches, short records and all), loads to the very same state', async () => {
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
    // The append path writes a create's event and stored answer short (the document says the rest).
    expect(text).toContain('"body":{"snapshot_of":"tx"}');
    expect(text).toContain('"answer_of":{"tx":');
    const copy = join(dir, 'copy.state');
    writeFileSync(copy, text, { mode: 0o600 });
    const b = await start({ statePath: copy });
    // The records; the header and the commit line frame them with the time of the export
    // (the commit's CRC covers the header), which differs from one export to the next.
    const body = (doc: string) => doc.split('\n').filter((l) => !/^\{"k":"(header|commit)"/.test(l)).join('\n');
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

  it('drops a last write cut short (a kill mid-write) and keeps everything before it', async () => {
    const file = join(stateDir(), 's.state');
    const a = await start({ statePath: file });
    const tx = await createTx(a);
    await stop(a);
    appendFileSync(file, '{"k":"tx","p":0,"v":{"seq":2,"id":"half a rec');
    const logs: string[] = [];
    const b = await start({ statePath: file, log: (l) => logs.push(l) });
    expect((await b.get(`/transactions/${tx.id}`)).status).toBe(200);
    expect(logs.join('\n')).toMatch(/dropped an unfinished last write/);
  });

  it.each([
    ['a changed byte', (text: string) => text.replace('awaiting_deposit', 'awaiting_depositX'), /is damaged: the batch ending at line \d+ does not match its checksum/],
    ['a missing line', (text: string) => text.split('\n').filter((l) => !l.startsWith('{"k":"event"')).join('\n'), /is damaged/],
    ['another version', (text: string) => text.replace(/"offramp_version":"[^"]+"/, '"offramp_version":"0.0.1"'), /was written by offramp 0\.0\.1 \(state format 1\); this is offramp .+ which reads only its own/],
    ['another format version', (text: string) => text.replace('"format_version":1', '"format_version":2'), /state format 2/],
    ['not a state at all', () => '{"transactions":[]}\n', /is not an offramp emulator state/],
    ['half a first write', (text: string) => text.slice(0, 100), /is not an offramp emulator state|no complete batch/],
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
    await expect(startEmulator({ port: 0, statePath: file })).rejects.toThrow(/writable by group or others \(mode 620\)/);
    chmodSync(file, 0o644);
    // Readable by others is the user's choice; writable is not.
    const emu = await startEmulator({ port: 0, statePath: file });
    running.push(emu);
  });

  it.runIf(process.getuid?.() === 0)('refuses a file owned by another user', async () => {
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

  it('rewrites itself whole at a clean stop, leaving no temporary file', async () => {
    const dir = stateDir();
    const file = join(dir, 's.state');
    const a = await start({ statePath: file });
    for (let i = 0; i < 3; i++) await createTx(a);
    await a.emu.flush();
    await stop(a);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('{"k":"commit"'))).toHaveLength(1);
    expect(readdirSync(dir).sort()).toEqual(['s.state']);
  });

  it('loads a file written before ledger rows held strings: a null merchant_id or terminal_id comes back as ""', async () => {
    const file = join(stateDir(), 's.state');
    const a = await start({ statePath: file });
    const tx = await createTx(a);
    for (const event of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) expect((await simulate(a, tx.id, event)).status).toBe(200);
    await stop(a);
    // What an earlier emulator wrote: the row's two ids as null, under a checksum that holds.
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const rowAt = lines.findIndex((l) => l.startsWith('{"k":"row"'));
    const older = lines[rowAt]!.replace('"merchant_id":""', '"merchant_id":null').replace('"terminal_id":""', '"terminal_id":null');
    expect(older).toContain('"terminal_id":null');
    lines[rowAt] = older;
    const text = `${lines.slice(0, -1).join('\n')}\n`;
    writeFileSync(file, `${text}{"k":"commit","n":${lines.length - 1},"crc32":${crc32(text)}}\n`, { mode: 0o600 });

    const b = await start({ statePath: file });
    const now = new Date();
    const page = await b.get(`/revenue?from=${new Date(now.getTime() - 86_400_000).toISOString()}&to=${now.toISOString()}`);
    expect(page.status).toBe(200);
    expect(page.body.data.data).toEqual([expect.objectContaining({ transaction_id: tx.id, merchant_id: '', terminal_id: '' })]);
  });
});

async function closeRunning(): Promise<void> {
  await Promise.all(running.splice(0).map((e) => e.close()));
}
