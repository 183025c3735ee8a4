// `tx list` and `tx history` on a real terminal (util-linux `script`) 80 and 100 columns
// wide, against the emulator and the variant server: no row wraps, and what a reader came
// for stays whole: every status, and an id short enough to fit but long enough to paste
// back (docs/transactions.md, "Short ids"); the reference is cut in its middle. Widths are
// terminal cells (docs/output.md, "Widths"): references in Chinese and Japanese, with a
// ZWJ family, a flag and a combining accent, fit as ASCII ones do, cut between whole
// characters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runInPty } from '../helpers/pty.js';
import { json, scriptedServer } from '../helpers/server.js';
import { startVariant, type RunningVariant } from '../helpers/variant-server.js';
import { broken, cells, graphemesOf } from '../output/cells.js';
import { history, KEY, ok, TX_ID } from './fixtures.js';
import { partner } from './partner.js';

type Target = { name: string; env: Record<string, string>; api: ReturnType<typeof partner>; close(): Promise<void> };
const targets: Target[] = [];
/** Reference → [id, status], per target. */
const made = new Map<string, Map<string, [string, string]>>();

const LONG_REF = `order-${'x'.repeat(100)}-end`;
const FAMILY = '👨‍👩‍👧‍👦';
const FLAG = '🇳🇬';
/** Wider than any terminal's reference column: CJK (two cells each), emoji sequences, an accent made of two code points. */
const WIDE_REF = `注文-東京-渋谷店-${FAMILY}${FLAG}-cafe\u0301-${'データ'.repeat(6)}-end`;
/** Short enough to show whole at 80 columns. */
const SHORT_WIDE_REF = `cafe\u0301-東京-${FLAG}`;
const WALKS: [ref: string, fiat: string, events: string[]][] = [
  [LONG_REF, '999999999999999.99', []],
  [WIDE_REF, '5000', ['deposit.detected']],
  [SHORT_WIDE_REF, '5000', []],
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
    for (const [i, [ref, fiat, events]] of WALKS.entries()) {
      const r = await t.api.call('POST', '/transactions', { fiat_amount: fiat, crypto_currency: 'usdt', network: 'bep20', merchant_reference: ref }, `w-${i}`);
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

/** A line as a terminal shows it: within `cols` cells, and no character broken (U+FFFD or half a surrogate pair). */
function fits(line: string, cols: number): void {
  expect(cells(line), line).toBeLessThanOrEqual(cols);
  expect(broken(line), line).toBe(false);
}

describe.each(['emulator', 'variant'])('on a terminal, against %s', { timeout: 60_000 }, (name) => {
  it.each([80, 100])('tx list at %i columns: one line per row, every status whole, ids pasteable', async (cols) => {
    const t = targets.find((x) => x.name === name)!;
    const r = await runInPty(['tx', 'list'], t.env, 20_000, cols).done;
    expect(r.code, r.output).toBe(0);
    const lines = r.screen.split('\n').filter((l) => l.trim() !== '');
    for (const line of lines) fits(line, cols);
    expect(lines[0]).toMatch(/^ID +STATUS +AMOUNT \(NGN\) /);
    expect(lines).toHaveLength(1 + WALKS.length);
    for (const [ref, [id, status]] of made.get(name)!) {
      const row = lines.find((l) => l.startsWith(id.slice(0, 8)))!;
      expect(row, ref).toBeDefined();
      expect(row.split(/ +/)[1]).toBe(status);
      // The reference is cut in its middle, so its start and its end both show.
      if (ref === LONG_REF) expect(row).toMatch(/order-x+…x*-end$/);
      else if (ref === WIDE_REF) {
        const shown = row.slice(row.indexOf('注'));
        expect(shown, row).toMatch(/^注文-東京-.*….*データ-end$/u);
        // Whole characters each side of the cut: every one shown is one of the reference's.
        const whole = new Set(graphemesOf(ref));
        for (const g of graphemesOf(shown)) if (g !== '…') expect(whole.has(g), `${JSON.stringify(g)} in ${row}`).toBe(true);
      } else expect(row.endsWith(ref), row).toBe(true);
    }
  });

  it.each([80, 100])('tx history at %i columns: one line per change, every new status whole', async (cols) => {
    const t = targets.find((x) => x.name === name)!;
    const [id] = made.get(name)!.get('w-refunded')!;
    const r = await runInPty(['tx', 'history', id.slice(0, 8)], t.env, 20_000, cols).done;
    expect(r.code, r.output).toBe(0);
    const lines = r.screen.split('\n').filter((l) => l.trim() !== '');
    for (const line of lines) fits(line, cols);
    const table = lines.slice(lines.findIndex((l) => l.startsWith('CHANGE')));
    expect(table.slice(1).map((l) => l.split(' → ')[1]!.split(/ +/)[0])).toEqual(['awaiting_deposit', 'deposit_confirming', 'failed', 'refunded']);
  });
});

describe('tx history on a terminal, its reasons and metadata in CJK with emoji', { timeout: 60_000 }, () => {
  // What a service may put in a change's free text (the emulator's own reasons are ASCII),
  // with emoji newer than some width tables (🧑‍💻, 🫠).
  const NOTE = `入金確認-東京-${FAMILY}${FLAG}🧑‍💻🫠-cafe\u0301`;
  const plain = history(['awaiting_deposit', 'deposit_confirming', 'failed', 'refunded']);
  const answer = { ...plain, history: plain.history.map((h, i) => ({ ...h, reason: `${NOTE}:${i}`, metadata: { note: `${'データ'.repeat(4)}-${NOTE}`, step: i } })) };

  it.each([80, 100])('at %i columns: one line per change, every new status whole, no broken character', async (cols) => {
    const server = await scriptedServer(Array.from({ length: 3 }, () => json(200, ok(answer))));
    try {
      const env = { ...tempHome().env, OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl };
      const r = await runInPty(['tx', 'history', TX_ID], env, 20_000, cols).done;
      expect(r.code, r.output).toBe(0);
      const lines = r.screen.split('\n').filter((l) => l.trim() !== '');
      for (const line of lines) fits(line, cols);
      const table = lines.slice(lines.findIndex((l) => l.startsWith('CHANGE')));
      expect(table.slice(1).map((l) => l.split(' → ')[1]!.split(/ +/)[0])).toEqual(['awaiting_deposit', 'deposit_confirming', 'failed', 'refunded']);
      // The reason keeps its head, in whole characters: never a piece of a ZWJ sequence or a flag.
      const whole = new Set(graphemesOf(`${NOTE}:0123`));
      for (const row of table.slice(1)) {
        const reason = row.slice(row.indexOf(' 入金') + 1).split(' ')[0]!;
        expect(reason, row).toMatch(/^入金確認-東京-/u);
        for (const g of graphemesOf(reason)) if (g !== '…') expect(whole.has(g), `${JSON.stringify(g)} in ${row}`).toBe(true);
      }
    } finally {
      await server.close();
    }
  });
});
