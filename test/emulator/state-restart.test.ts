// `offramp emulator --state FILE`, the built binary, stopped and started again: after
// SIGTERM (a clean stop) and after SIGKILL (no stop at all, with creates under way), a
// transaction, its history, every answered create and its key's replay, and a failed
// delivery all come back; a journal cut short at its end loads, one damaged before does not.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { eventually, webhookReceiver } from './helpers.js';

const KEY = 'sk_test_restart_partner';
const children = new Set<ChildProcess>();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

type Running = { child: ChildProcess; url: string; origin: string; stderr: () => string; exited: Promise<number | null> };

function start(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [BIN, 'emulator', '--port', '0', '--api-key', KEY, ...args], {
    env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, NO_COLOR: '1', HOME: tmpdir() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) {
        const url = out.trim();
        resolve({ child, url, origin: new URL(url).origin, stderr: () => stderr, exited });
      }
    });
    child.once('exit', (code) => reject(new Error(`emulator exited ${code}: ${stderr}`)));
  });
}

async function call(emu: Running, method: string, path: string, body?: unknown, idempotencyKey?: string) {
  const headers: Record<string, string> = { 'x-api-key': KEY };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const res = await fetch(emu.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, body: JSON.parse(text) };
}

/** What the first run leaves: a transaction part-way, its key, a delivery that failed. */
async function firstRun(emu: Running) {
  const create = { fiat_amount: '25000', crypto_currency: 'usdt', network: 'bep20', merchant_reference: `restart-${Date.now()}` };
  const created = await call(emu, 'POST', '/transactions', create, 'restart-key-1');
  expect(created.status).toBe(201);
  const id = created.body.data.id as string;
  expect((await call(emu, 'POST', '/sandbox/simulate', { transaction_id: id, event: 'deposit.detected' })).status).toBe(200);
  // No --webhook-url in this run: each event's delivery fails at once, and stays failed.
  const events = await eventually(async () => {
    const list = (await call(emu, 'GET', `/webhooks/events?transaction_id=${id}`)).body.data.data as { delivery_status: string }[];
    expect(list.map((e) => e.delivery_status)).toEqual(['failed', 'failed']);
    return list;
  });
  const history = (await call(emu, 'GET', `/transactions/${id}/status-history`)).text;
  return { create, created, id, events, history };
}

async function expectBack(emu: Running, before: Awaited<ReturnType<typeof firstRun>>) {
  expect((await call(emu, 'GET', `/transactions/${before.id}`)).body.data).toMatchObject({ id: before.id, status: 'deposit_confirming', deposit_status: 'detected' });
  expect((await call(emu, 'GET', `/transactions/${before.id}/status-history`)).text).toBe(before.history);
  const replay = await call(emu, 'POST', '/transactions', before.create, 'restart-key-1');
  expect(replay.status).toBe(201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.text).toBe(before.created.text);
  const events = (await call(emu, 'GET', `/webhooks/events?transaction_id=${before.id}`)).body.data.data;
  expect(events).toEqual(before.events);
  // Newest first: the transaction's first event is the last.
  expect(events.at(-1)).toMatchObject({ event_type: 'transaction.created', delivery_status: 'failed', attempts: 1, last_error: expect.stringMatching(/no webhook endpoint/) });
  return events as { event_id: string }[];
}

describe('offramp emulator --state, restarted', () => {
  it('after SIGTERM everything comes back, and a failed delivery replays to the endpoint of the new run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-restart-'));
    const file = join(dir, 'emulator.state');
    const first = await start(['--state', file]);
    const before = await firstRun(first);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(143);
    expect(first.stderr()).toContain(`state written to ${file}`);
    expect(readdirSync(dir)).toEqual(['emulator.state']);

    const hooks = await webhookReceiver();
    cleanups.push(hooks.close);
    const second = await start(['--state', file, '--webhook-url', hooks.url]);
    await eventually(() => expect(second.stderr()).toMatch(/state: .* \(1 transactions, 2 events\)/));
    const events = await expectBack(second, before);
    // The event kept its snapshot: the replay delivers it whole, under the same id.
    expect((await call(second, 'POST', `/webhooks/events/${events.at(-1)!.event_id}/replay`)).status).toBe(200);
    await eventually(() => expect(hooks.deliveries).toHaveLength(1));
    expect(hooks.deliveries[0]!.body).toMatchObject({ id: events.at(-1)!.event_id, type: 'transaction.created', data: { id: before.id, status: 'awaiting_deposit' } });
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(130);
  });

  it('after SIGKILL under concurrent creators, every create answered 201 is there, and every key replays its first answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-restart-'));
    const file = join(dir, 'emulator.state');
    const first = await start(['--state', file]);
    const before = await firstRun(first);
    // Eight creators, each sending creates one after another, until the kill.
    const answered = new Map<string, { body: unknown; text: string }>();
    let killed = false;
    const creator = async (c: number) => {
      for (let i = 0; !killed; i++) {
        const key = `kill-${c}-${i}`;
        const body = { ...before.create, merchant_reference: `${before.create.merchant_reference}-${key}` };
        const answer = await call(first, 'POST', '/transactions', body, key).catch(() => undefined);
        if (answer?.status === 201) answered.set(key, { body, text: answer.text });
      }
    };
    const creators = Array.from({ length: 8 }, (_, c) => creator(c));
    await vi.waitFor(() => expect(answered.size).toBeGreaterThanOrEqual(40), { timeout: 20_000, interval: 20 });
    first.child.kill('SIGKILL');
    killed = true;
    await first.exited;
    await Promise.all(creators);

    const second = await start(['--state', file]);
    await expectBack(second, before);
    for (const [key, { body, text }] of answered) {
      const replay = await call(second, 'POST', '/transactions', body, key);
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(text);
    }
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(143);
    expect(readdirSync(dir)).toEqual(['emulator.state']);
  });

  it('after SIGKILL, a write cut short at the end of the journal is dropped with one warning; everything before it loads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-restart-'));
    const file = join(dir, 'emulator.state');
    const first = await start(['--state', file]);
    const before = await firstRun(first);
    first.child.kill('SIGKILL');
    await first.exited;
    const segment = join(dir, readdirSync(dir).find((name) => name.startsWith('emulator.state.journal.'))!);
    const whole = readFileSync(segment);
    // What a crash in the middle of a write leaves: part of a record, no commit line.
    appendFileSync(segment, '{"k":"tx","p":0,"v":{"seq":9,"id":"half a rec');

    const second = await start(['--state', file]);
    await expectBack(second, before);
    const warnings = second.stderr().split('\n').filter((line) => line.startsWith('warning:'));
    expect(warnings).toEqual([expect.stringMatching(/^warning: journal .*emulator\.state\.journal\.\d+ ends in a write cut short \(\d+ bytes, from a crash\): dropped it, loaded everything before it$/)]);
    // Cut off the file, so a second crash does not find it in the middle of the journal.
    expect(readFileSync(segment)).toEqual(whole);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(143);
  });

  it('refuses a journal damaged before its end whole, with one line and exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-restart-'));
    const file = join(dir, 'emulator.state');
    const first = await start(['--state', file]);
    await firstRun(first);
    first.child.kill('SIGKILL');
    await first.exited;
    const segment = join(dir, readdirSync(dir).find((name) => name.startsWith('emulator.state.journal.'))!);
    const damaged = readFileSync(segment, 'utf8').replace('"status":"awaiting_deposit"', '"status":"awaiting_depositX"');
    writeFileSync(segment, damaged);
    const { code, stdout, stderr } = await runMain(['emulator', '--port', '0', '--state', file]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^error: STATE_FILE: journal .*emulator\.state\.journal\.\d+ is damaged: the write ending at line \d+ does not match its checksum\nhint: nothing was loaded/);
    expect(readFileSync(segment, 'utf8')).toBe(damaged);
  });

  it('refuses a damaged file with one line and exit 2, and loads nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-restart-'));
    const file = join(dir, 'emulator.state');
    writeFileSync(file, '{"k":"header","format":"offramp-emulator-state","format_version":1,"offramp_version":"0.0.0","written_at":"x"}\n', { mode: 0o600 });
    const { code, stdout, stderr } = await runMain(['emulator', '--port', '0', '--state', file]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^error: STATE_FILE: state file .*emulator\.state was written by offramp 0\.0\.0 .*\nhint: nothing was loaded/);
  });
});
