// Tables that fit the terminal (issue #16, item 1), under a pseudo-terminal 80 columns
// wide: tx list, tx history, webhooks list and reconcile keep every line within 80
// characters, shortening with `…` and leaving out the least needed columns; --wide and
// piped output show every cell whole. At 80 and 120 columns the columns that carry the
// meaning stay whole or long enough (issue #21): the new status of each change, references
// that differ only at their end, the last error of a delivery, a profile's base URL, a
// webhooks listen line.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chalk } from 'chalk';
import { fitWidths, layout } from '../../src/lib/output/render.js';
import { shorten } from '../../src/lib/output/width.js';
import { deliveryLine, lineStyle } from '../../src/lib/webhooks/describe.js';
import type { DeliveryInfo } from '../../src/lib/webhooks/receiver.js';
import { tempHome } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { KEYS, runInPty } from '../helpers/pty.js';
import { sign } from '../../src/lib/webhooks/signature.js';
import { broken, cells } from './cells.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
let ids: string[] = [];
const LONG_REF = 'order-with-a-rather-long-reference-name-0001';
const LONG_REF_2 = 'order-with-a-rather-long-reference-name-0002';

beforeAll(async () => {
  emu = await emulatorFor();
  for (const ref of [LONG_REF, 'short-2', LONG_REF_2]) {
    const r = await runMain(['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', ref, '--json'], { env: emu.env });
    ids.push(JSON.parse(r.stdout).id);
  }
  for (const event of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) {
    await fetch(`${emu.emulator.url}/sandbox/simulate`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ transaction_id: ids[0], event }),
    });
  }
});
afterAll(() => emu.close());

/** The table's lines: messages on stderr (a command to copy, an error) may be longer, and wrap. */
const table = (output: string) => output.split(/\r?\n/).filter((l) => l.trim() !== '' && !/^(Redeliver|error:|hint:|Clean:|transaction \S+: )/.test(l));
const day = new Date().toISOString().slice(0, 10);

const DELIVERY: DeliveryInfo = {
  receivedAt: new Date('2026-11-22T10:00:00Z'),
  reception: 'accepted',
  httpStatus: 200,
  verified: true,
  duplicate: false,
  outOfOrder: false,
  id: '6f1c2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b',
  type: 'deposit.detected',
  transactionId: '0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91',
  status: 'deposit_confirming',
  eventStatus: 'deposit_confirming',
  scheme: 'timestamped-sha256',
};

describe('tables at 80 columns', { timeout: 60_000 }, () => {
  /** tx list also shortens ids and references with …, keeping their heads. */
  const shortened = (output: string) => {
    expect(output).toContain(`${ids[0]!.slice(0, 8)}…`);
    expect(output).not.toContain(ids[0]!);
    expect(output).toMatch(/order-with-a\S*…/);
  };
  it.each([
    [['tx', 'list'], /^ID\s+STATUS\s+AMOUNT \(NGN\)\s+CREATED\s+REFERENCE$/, shortened],
    [['tx', 'history', 'ID0'], /^CHANGE\s+WHEN\s+REASON/, undefined],
    [['webhooks', 'list', '--all'], /^EVENT ID\s+TYPE/, undefined],
    [['reconcile', '--from', day, '--to', day], /^TRANSACTION\s+/, undefined],
  ])('%s fits', async (args, header, also) => {
    const s = runInPty(args.map((a) => (a === 'ID0' ? ids[0]! : a)), emu.env, 20_000, 80);
    const r = await s.done;
    // As the terminal shows it: a spinner (reconcile's) erases its line before the table.
    const lines = table(r.screen);
    expect(lines.some((l) => header.test(l)), r.screen).toBe(true);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    also?.(r.output);
  });

  it('--wide, and piped output, show every cell whole', async () => {
    const wide = await runInPty(['tx', 'list', '--wide'], emu.env, 20_000, 80).done;
    expect(wide.output).toContain(ids[0]!);
    expect(wide.output).toContain(LONG_REF);
    const piped = await runMain(['tx', 'list'], { env: emu.env });
    expect(piped.stdout).toContain(ids[0]!);
    expect(piped.stdout).toContain(LONG_REF);
    expect(piped.stdout).toMatch(/CRYPTO/);
  });
});

describe.each([80, 120])('at %i columns, what carries the meaning stays', (columns) => {
  const lines = (stdout: string) => stdout.split('\n').filter((l) => l !== '');

  it('tx history: the new status of every change, whole', async () => {
    const r = await runMain(['tx', 'history', ids[0]!], { env: emu.env, columns });
    expect(r.code, r.stderr).toBe(0);
    const rows = lines(r.stdout).slice(1);
    expect(rows.map((l) => /→ (\S+)/.exec(l)?.[1])).toEqual(['awaiting_deposit', 'deposit_confirming', 'selling_crypto', 'order_filled', 'completed']);
    for (const l of lines(r.stdout)) expect(l.length, l).toBeLessThanOrEqual(columns);
  });

  it('tx list: references that differ only at their end stay apart', async () => {
    const r = await runMain(['tx', 'list'], { env: emu.env, columns });
    expect(r.code, r.stderr).toBe(0);
    const refs = lines(r.stdout).slice(1).map((l) => l.split(/\s+/).at(-1));
    expect(refs).toContain('short-2');
    const long = refs.filter((ref) => ref?.startsWith('order-with-a'));
    expect(long).toHaveLength(2);
    expect(long.map((ref) => ref!.slice(-4)).sort()).toEqual(['0001', '0002']);
    for (const ref of long) expect([...ref!].length).toBeGreaterThanOrEqual(24);
    for (const l of lines(r.stdout)) expect(l.length, l).toBeLessThanOrEqual(columns);
  });

  it('webhooks list: enough of the last error to read it', async () => {
    const r = await runMain(['webhooks', 'list', '--all'], { env: emu.env, columns });
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)[0]).toMatch(/LAST ERROR$/);
    // At least 24 characters of it, however long the relative time beside it.
    for (const l of lines(r.stdout).slice(1)) expect(l).toMatch(/ no webhook endpoint conf/);
    for (const l of lines(r.stdout)) expect(l.length, l).toBeLessThanOrEqual(columns);
  });

  it('profile list: a long base URL keeps its host', async () => {
    const home = tempHome();
    const url = 'https://partner-staging.payments.example-provider.com/api/v1/partner';
    const added = await runMain(['profile', 'add', 'staging-eu-west', '--env', 'staging', '--base-url', url, '--api-key-stdin', '--webhook-secret-stdin'], {
      env: home.env,
      stdin: 'sk_test_0123456789abcdef\nwhsec_0123456789abcdef\n',
    });
    expect(added.code, added.stderr).toBe(0);
    const r = await runMain(['profile', 'list'], { env: home.env, columns });
    expect(r.code, r.stderr).toBe(0);
    const row = lines(r.stdout)[1]!;
    expect(row).toMatch(/staging-eu-west\s+staging\s+https:\/\/partner-staging\.pay\S*\s+sk_…cdef\s+whsec_…cdef$/);
    for (const l of lines(r.stdout)) expect(l.length, l).toBeLessThanOrEqual(columns);
  });

  it('webhooks listen: a delivery line fits, the widest type and status included', () => {
    const line = deliveryLine(DELIVERY, lineStyle(new Chalk({ level: 0 }), true, columns));
    expect(line.length, line).toBeLessThanOrEqual(columns);
    expect(line).toMatch(/deposit\.detected +6f1c2a3b\S*\s+tx 0b6f3c1e\S*\s+deposit_confirming/);
    // The scheme shows where there is room for it.
    if (columns >= 120) expect(line).toContain('timestamped-sha256');
  });

  it('webhooks listen: a delivery line fits when what the delivery claims is CJK and emoji', () => {
    // Measured in terminal cells (docs/output.md, "Widths").
    const claims = (type: string): DeliveryInfo => ({ ...DELIVERY, id: `事件-東京-👨‍👩‍👧‍👦🇳🇬-${'データ'.repeat(8)}`, type, transactionId: `取引-🧑‍💻-${'データ'.repeat(8)}` });
    const style = lineStyle(new Chalk({ level: 0 }), true, columns);
    const line = deliveryLine(claims('支払い.完了'), style);
    expect(cells(line), line).toBeLessThanOrEqual(columns);
    expect(broken(line), line).toBe(false);
    expect(line).toMatch(/ 事件-\S*… /u);
    // The type is padded in cells: the id starts where it does after an ASCII type.
    const idAt = (l: string) => cells(l.slice(0, l.indexOf('事件')));
    expect(idAt(line), line).toBe(idAt(deliveryLine(claims('deposit.detected'), style)));
  });
});

describe('fitWidths', () => {
  it('drops by rank only when shortening cannot fit, then shortens the widest first', () => {
    // 36 + 10 + 30 + 2 gaps = 80: fits as is.
    expect(fitWidths([36, 10, 30], [{ min: 9 }, undefined, { min: 5 }], 80)).toEqual({ keep: [true, true, true], widths: [36, 10, 30] });
    // 60 wide: shortening is enough; the two shortenable columns end equally slack.
    expect(fitWidths([36, 10, 30], [{ min: 9 }, undefined, { min: 9 }], 60)).toEqual({ keep: [true, true, true], widths: [23, 10, 23] });
    // 30 wide: even at their minimums they do not fit; the droppable one goes.
    expect(fitWidths([36, 10, 30], [{ min: 9 }, undefined, { min: 9, drop: 1 }], 30)).toEqual({ keep: [true, true, false], widths: [18, 10, 30] });
    expect(fitWidths([36, 10], [{ min: 9 }, undefined], undefined)).toEqual({ keep: [true, true], widths: [36, 10] });
    expect(shorten('0b6f3c1e-8d2a-4f51', 9)).toBe('0b6f3c1e…');
  });

  it('cuts at the end, in the middle (references) or at the start (a status change)', () => {
    expect(shorten('order-with-a-long-name-0001', 15, 'middle')).toBe('order-w…me-0001');
    expect(shorten('awaiting_deposit → deposit_confirming', 22, 'start')).toBe('… → deposit_confirming');
    expect(shorten('short', 9, 'middle')).toBe('short');
  });

  it('gives way in order: compact times, then the gap, then ids first, the last-resort column last', () => {
    const fits = [{ min: 9, giveWay: 'first' as const }, { min: 10, giveWay: 'last' as const }, { min: 10 }];
    // Fits whole with the two-space gap: nothing changes.
    expect(layout([36, 20, 20], undefined, fits, 80)).toEqual({ keep: [true, true, true], widths: [36, 20, 20], gap: 2, compact: false });
    // The compact form is enough.
    expect(layout([36, 31, 20], [36, 8, 20], fits, 80)).toMatchObject({ widths: [36, 8, 20], gap: 2, compact: true });
    // Then a one-space gap, then the id to its head before the others give a character.
    expect(layout([36, 20, 20], undefined, fits, 78)).toMatchObject({ widths: [36, 20, 20], gap: 1 });
    expect(layout([36, 20, 22], undefined, fits, 79)).toMatchObject({ widths: [35, 20, 22], gap: 1 });
    expect(layout([36, 20, 40], undefined, fits, 60)).toMatchObject({ widths: [9, 20, 29], gap: 1 });
    // The last-resort column gives only when no other can.
    expect(layout([36, 20, 40], undefined, fits, 30)).toMatchObject({ widths: [9, 10, 10], gap: 1 });
  });
});

describe('webhooks listen --forward-to in a 100-column terminal', () => {
  it('a forward line never wraps: the URL given at start goes, then the app\'s answer is cut', async () => {
    const secret = 'whsec_forward_lines_100';
    // The app is down for maintenance and says so at length, at a long address.
    const app = createServer((_req, res) => res.writeHead(503).end(`maintenance: ${'the payments service is being upgraded; '.repeat(4)}`));
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    const target = `http://127.0.0.1:${(app.address() as AddressInfo).port}/partner/integrations/offramp/webhooks?source=offramp-cli&tenant=acme`;
    const store = join(mkdtempSync(join(tmpdir(), 'offramp-forward-lines-')), 'events.ndjson');
    const s = runInPty(['webhooks', 'listen', '--port', '0', '--store', store, '--forward-to', target], { ...tempHome().env, OFFRAMP_WEBHOOK_SECRET: secret, OFFRAMP_RETRY_BASE_MS: '200' }, 20_000, 100);
    try {
      await s.waitFor(/Listening for webhooks on http:\/\/127\.0\.0\.1:\d+\//);
      const url = /Listening for webhooks on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(s.output)![1]!;
      const body = JSON.stringify({ id: '6f1c2a3b-5d4e-4f00-8a1b-2c3d4e5f6a7b', type: 'transaction.created', data: { id: '0b6f3c1e-8d2a-4f51-9c3e-7a1b2c3d4e5f', status: 'awaiting_deposit' } });
      expect((await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-webhook-signature': sign(body, secret) } })).status).toBe(200);
      await s.waitFor(/still owed[^\n]*\n[^]*still owed/);
      s.type(KEYS.ctrlC);
      const r = await s.done;
      const forwards = r.screen.split('\n').filter((l) => l.includes(' → '));
      expect(forwards.length, r.screen).toBeGreaterThanOrEqual(2);
      for (const line of forwards) {
        expect(cells(line), line).toBeLessThanOrEqual(100);
        expect(line).toMatch(/^ {2}→ 6f1c2a3b\S* {2}503 in \d+ ms( \(try \d+\))?: maintenance: the payments[^;]*…; still owed, next try in /);
      }
    } finally {
      await new Promise((r) => app.close(r));
    }
  });
});
