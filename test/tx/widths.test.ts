// `tx list` and `tx history` on a real terminal (util-linux `script`) 80 and 100 columns
// wide, against the emulator and the variant server: no row wraps, and what a reader came
// for stays whole: every status, and an id short enough to fit but long enough to paste
// back (docs/transactions.md, "Short ids"); the reference is cut in its middle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runInPty } from '../helpers/pty.js';
import { startVariant, type RunningVariant } from '../helpers/variant-server.js';
import { partner } from './partner.js';

type Target = { name: string; env: Record<string, string>; api: ReturnType<typeof partner>; close(): Promise<void> };
const targets: Target[] = [];
/** Reference → [id, status], per target. */
const made = new Map<string, Map<string, [string, string]>>();

const LONG_REF = `order-${'x'.repeat(100)}-end`;
const WALKS: [ref: string, fiat: string, events: string[]][] = [
  [LONG_REF, '999999999999999.99', []],
  ['w-confirming', '5000', ['deposit.detected']],
  ['w-completed', '123456.78', ['deposit.detected', 'deposit.confirmed', 'transaction.completed']],
  ['w-refunded', '5000', ['deposit.detected', 'transaction.failed', 'transaction.refunded']],
  ['w-expired', '5000', ['transaction.expired']],
];

beforeAll(async () => {
  const emu = await emulatorFor();
  targets.push({ name: 'emulator', env: emu.env, api: partner(emu.emulator.url, TEST_KEY), close: () => emu.close() });
  const variant: RunningVariant = await startVariant({ emulator: { webhookRetry: { maxAttempts: 1, baseDelayMs: 5 } } });
  targets.push({ name: 'variant', env: { ...emu.home.env, OFFRAMP_API_KEY: variant.apiKey, OFFRAMP_BASE_URL: variant.baseUrl }, api: partner(variant.baseUrl, variant.apiKey), close: () => variant.close() });
  for (const t of targets) {
    const byRef = new Map<string, [string, string]>();
    for (const [ref, fiat, events] of WALKS) {
      const r = await t.api.call('POST', '/transactions', { fiat_amount: fiat, crypto_currency: 'usdt', network: 'bep20', merchant_reference: ref }, `w-${ref}`);
      let status = r.data.status as string;
      for (const event of events) status = (await t.api.simulate(r.data.id, event)).status;
      byRef.set(ref, [r.data.id, status]);
    }
    made.set(t.name, byRef);
  }
}, 60_000);
afterAll(async () => {
  for (const t of targets) await t.close();
});

const width = (line: string) => [...line].length;

describe.each(['emulator', 'variant'])('on a terminal, against %s', { timeout: 60_000 }, (name) => {
  it.each([80, 100])('tx list at %i columns: one line per row, every status whole, ids pasteable', async (cols) => {
    const t = targets.find((x) => x.name === name)!;
    const r = await runInPty(['tx', 'list'], t.env, 20_000, cols).done;
    expect(r.code, r.output).toBe(0);
    const lines = r.screen.split('\n').filter((l) => l.trim() !== '');
    for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(cols);
    expect(lines[0]).toMatch(/^ID +STATUS +AMOUNT \(NGN\) /);
    expect(lines).toHaveLength(1 + WALKS.length);
    for (const [ref, [id, status]] of made.get(name)!) {
      const row = lines.find((l) => l.startsWith(id.slice(0, 8)))!;
      expect(row, ref).toBeDefined();
      expect(row.split(/ +/)[1]).toBe(status);
      // The reference is cut in its middle, so its start and its end both show.
      expect(row).toContain(ref === LONG_REF ? 'order-x' : ref);
      if (ref === LONG_REF) expect(row).toMatch(/…x*-end$/);
    }
  });

  it.each([80, 100])('tx history at %i columns: one line per change, every new status whole', async (cols) => {
    const t = targets.find((x) => x.name === name)!;
    const [id] = made.get(name)!.get('w-refunded')!;
    const r = await runInPty(['tx', 'history', id.slice(0, 8)], t.env, 20_000, cols).done;
    expect(r.code, r.output).toBe(0);
    const lines = r.screen.split('\n').filter((l) => l.trim() !== '');
    for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(cols);
    const table = lines.slice(lines.findIndex((l) => l.startsWith('CHANGE')));
    expect(table.slice(1).map((l) => l.split(' → ')[1]!.split(/ +/)[0])).toEqual(['awaiting_deposit', 'deposit_confirming', 'failed', 'refunded']);
  });
});
