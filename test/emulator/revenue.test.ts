// GET /revenue: the window rules, inclusive bounds, ordering, cursor pages, the summary of
// the whole window, the filters, fee math and seeding.
import { afterEach, describe, expect, it } from 'vitest';
import { Decimal, divide } from '../../src/lib/money.js';
import { RevenuePage, RevenueRow } from '../../src/lib/schemas.js';
import { createManualClock } from '../../src/emulator/index.js';
import { closeAll, createTx, expectError, expectOk, simulate, startApi, type Api } from './helpers.js';

afterEach(closeAll);

const DAY = 86_400_000;

async function complete(api: Api, overrides: Record<string, unknown> = {}) {
  const tx = await createTx(api, overrides);
  for (const event of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) {
    expect((await simulate(api, tx.id, event)).status).toBe(200);
  }
  return tx;
}

async function page(api: Api, query: string) {
  return expectOk(await api.get(`/revenue?${query}`), 200, RevenuePage);
}

async function allRows(api: Api, query: string, limit = 100) {
  const rows: RevenueRow[] = [];
  let cursor: string | null = null;
  let summary: RevenuePage['summary'];
  do {
    const p: RevenuePage = await page(api, `${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    rows.push(...p.data);
    summary ??= p.summary;
    if (p.summary) expect(p.summary).toEqual(summary);
    cursor = p.next_cursor;
  } while (cursor);
  return { rows, summary };
}

describe('window rules', () => {
  it('requires from and to as RFC 3339 date-times', async () => {
    const api = await startApi();
    expectError(await api.get('/revenue'), 400, 'BAD_REQUEST', /from is required/);
    expectError(await api.get('/revenue?from=2026-01-01T00:00:00Z'), 400, 'BAD_REQUEST', /to is required/);
    expectError(await api.get('/revenue?from=2026-01-01&to=2026-01-02'), 400, 'BAD_REQUEST', /from must be an RFC 3339 date-time/);
    expectError(await api.get('/revenue?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z'), 400, 'BAD_REQUEST', /to must not be before from/);
  });

  it('accepts exactly 90 days and refuses one millisecond more with the spec’s message', async () => {
    const api = await startApi();
    const from = Date.parse('2026-01-01T00:00:00.000Z');
    const at = (ms: number) => new Date(ms).toISOString();
    expectOk(await api.get(`/revenue?from=${at(from)}&to=${at(from + 90 * DAY)}`), 200, RevenuePage);
    expectError(await api.get(`/revenue?from=${at(from)}&to=${at(from + 90 * DAY + 1)}`), 400, 'BAD_REQUEST', /time window cannot exceed 90 days/);
  });

  it('includes rows stamped exactly at from and exactly at to', async () => {
    const clock = createManualClock(Date.parse('2026-02-01T00:00:00.000Z'));
    const api = await startApi({ clock });
    await complete(api);
    clock.advance(DAY);
    await complete(api);
    clock.advance(1);
    await complete(api);
    const rows = (await page(api, 'from=2026-02-01T00:00:00.000Z&to=2026-02-02T00:00:00.000Z')).data;
    expect(rows.map((r) => r.ts)).toEqual(['2026-02-01T00:00:00.000Z', '2026-02-02T00:00:00.000Z']);
    // An offset is the same instant.
    const offset = (await page(api, `from=${encodeURIComponent('2026-02-01T01:00:00+01:00')}&to=${encodeURIComponent('2026-02-02T01:00:00.001+01:00')}`)).data;
    expect(offset).toHaveLength(3);
  });
});

describe('pages and summary', () => {
  it('orders by ts then transaction_id, 50 per page by default, summary over the whole window on every page', async () => {
    const clock = createManualClock(Date.parse('2026-03-01T00:00:00.000Z'));
    // Seeded history fills the pages; three real completions in the same millisecond check the tie-break.
    const api = await startApi({ clock, seedRevenue: 240, seed: 21 });
    clock.advance(1000);
    for (let i = 0; i < 3; i++) await complete(api, { fiat_amount: '1000.00' });
    const to = new Date(clock.now()).toISOString();
    const query = `from=${new Date(clock.now() - 90 * DAY).toISOString()}&to=${to}&include_summary=true`;
    const first = await page(api, query);
    expect(first.limit).toBe(50);
    expect(first.data).toHaveLength(50);
    expect(first.has_more).toBe(true);

    const { rows, summary } = await allRows(api, query, 7);
    expect(rows.length).toBeGreaterThan(100);
    expect(new Set(rows.map((r) => r.transaction_id)).size).toBe(rows.length);
    const keys = rows.map((r) => `${r.ts}|${r.transaction_id}`);
    expect(keys).toEqual([...keys].sort());
    const tied = rows.slice(-3);
    expect(new Set(tied.map((r) => r.ts)).size).toBe(1);
    expect(tied.map((r) => r.transaction_id)).toEqual(tied.map((r) => r.transaction_id).sort());
    const total = rows.reduce((sum, r) => sum.plus(r.share), new Decimal(0));
    expect(summary).toEqual({
      from: new Date(clock.now() - 90 * DAY).toISOString(),
      to,
      total_partner_share: total.toFixed(2),
      transaction_count: rows.length,
    });
  });

  it('leaves summary out unless asked, and pages stay stable when rows arrive after the cursor', async () => {
    const clock = createManualClock(Date.parse('2026-03-01T00:00:00.000Z'));
    const api = await startApi({ clock });
    for (let i = 0; i < 4; i++) {
      clock.advance(1000);
      await complete(api);
    }
    const query = 'from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z&limit=2';
    const first = await page(api, query);
    expect(first.summary).toBeUndefined();
    clock.advance(1000);
    await complete(api);
    const second = await page(api, `${query}&cursor=${first.next_cursor}`);
    const third = await page(api, `${query}&cursor=${second.next_cursor}`);
    const ids = [...first.data, ...second.data, ...third.data].map((r) => r.transaction_id);
    expect(new Set(ids).size).toBe(5);
    expect(third.has_more).toBe(false);
    expect(third.next_cursor).toBeNull();
  });

  it('filters by crypto_currency and network, case-insensitively, in rows and summary', async () => {
    const clock = createManualClock(Date.parse('2026-04-01T00:00:00.000Z'));
    const api = await startApi({ clock, mode: 'production', seedRevenue: 400, seed: 11 });
    const from = new Date(clock.now() - 90 * DAY).toISOString();
    const to = new Date(clock.now()).toISOString();
    const all = await allRows(api, `from=${from}&to=${to}&include_summary=true`);
    const usdc = await allRows(api, `from=${from}&to=${to}&include_summary=true&crypto_currency=USDC`);
    const polygon = await allRows(api, `from=${from}&to=${to}&include_summary=true&network=polygon&crypto_currency=usdc`);
    expect(usdc.rows.length).toBeGreaterThan(0);
    expect(usdc.rows.every((r) => r.crypto_currency === 'usdc')).toBe(true);
    expect(usdc.rows.length).toBeLessThan(all.rows.length);
    expect(polygon.rows.every((r) => r.crypto_currency === 'usdc' && r.network === 'polygon')).toBe(true);
    expect(polygon.summary!.transaction_count).toBe(polygon.rows.length);
    expect(usdc.summary!.total_partner_share).toBe(usdc.rows.reduce((s, r) => s.plus(r.share), new Decimal(0)).toFixed(2));
  });
});

describe('ledger rows', () => {
  it('platform_fee is 1% of amount and share 25% of the fee, each rounded half-up to kobo', async () => {
    const clock = createManualClock(Date.parse('2026-05-01T00:00:00.000Z'));
    const api = await startApi({ clock });
    // 1% of 1050.50 = 10.505 → 10.51; 25% of 10.51 = 2.6275 → 2.63
    await complete(api, { fiat_amount: '1050.50' });
    const [row] = (await page(api, 'from=2026-05-01T00:00:00Z&to=2026-05-01T00:00:00Z')).data;
    expect(row).toMatchObject({ amount: '1050.50', platform_fee: '10.51', share: '2.63' });
  });

  it('merchant_id and terminal_id are strings, as the spec types the row: empty when the create gave none', async () => {
    const clock = createManualClock(Date.parse('2026-05-02T00:00:00.000Z'));
    const api = await startApi({ clock });
    await complete(api);
    clock.advance(1000);
    await complete(api, { merchant_id: 'm-7', terminal_id: 't-3' });
    const rows = (await page(api, 'from=2026-05-02T00:00:00Z&to=2026-05-02T00:01:00Z')).data;
    expect(rows.map((r) => [r.merchant_id, r.terminal_id])).toEqual([
      ['', ''],
      ['m-7', 't-3'],
    ]);
  });
});

describe('seeding', () => {
  // How fast it seeds is bench/'s to measure, not a functional test's.
  it('seeds 100,000 valid rows over the last 180 days', async () => {
    const api = await startApi({ seedRevenue: 100_000, seed: 42 });

    const now = api.emu.clock.now();
    const firstWindow = await page(api, `from=${new Date(now - 180 * DAY).toISOString()}&to=${new Date(now - 90 * DAY).toISOString()}&include_summary=true&limit=100`);
    const secondWindow = await page(api, `from=${new Date(now - 90 * DAY + 1).toISOString()}&to=${new Date(now).toISOString()}&include_summary=true&limit=100`);
    expect(firstWindow.summary!.transaction_count + secondWindow.summary!.transaction_count).toBe(100_000);
    for (const row of [...firstWindow.data, ...secondWindow.data]) {
      expect(RevenueRow.safeParse(row).success).toBe(true);
      const amount = new Decimal(row.amount);
      expect(row.platform_fee).toBe(amount.times('0.01').toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2));
      expect(row.share).toBe(new Decimal(row.platform_fee).times('0.25').toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2));
      expect(new Decimal(row.crypto_amount).toNumber()).toBeCloseTo(divide(amount, '1542.25', 6, Decimal.ROUND_DOWN).value.toNumber(), 5);
      expect(row).toMatchObject({ crypto_currency: 'usdt', network: 'bep20' });
      expect(row.merchant_reference).toMatch(/^seed-\d{6}$/);
    }
  });

  it('adds up, seeded and real rows together: the summary equals the sum of every row of the window', async () => {
    const clock = createManualClock();
    const api = await startApi({ seedRevenue: 1500, seed: 5, clock });
    const real = [];
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      real.push((await complete(api, { fiat_amount: '777.77' })).id);
    }
    const now = clock.now();
    const { rows, summary } = await allRows(api, `from=${new Date(now - 90 * DAY).toISOString()}&to=${new Date(now).toISOString()}&include_summary=true`, 37);
    expect(rows.length).toBe(summary!.transaction_count);
    expect(rows.length).toBeGreaterThan(500);
    expect(rows.slice(-3).map((r) => r.transaction_id)).toEqual(real);
    expect(new Set(rows.map((r) => r.transaction_id)).size).toBe(rows.length);
    const keys = rows.map((r) => `${r.ts}|${r.transaction_id}`);
    expect(keys).toEqual([...keys].sort());
    expect(summary!.total_partner_share).toBe(rows.reduce((s, r) => s.plus(r.share), new Decimal(0)).toFixed(2));
  });

  it('repeats the same amounts for the same seed', async () => {
    const clock = createManualClock(Date.parse('2026-06-01T00:00:00.000Z'));
    const a = await startApi({ seedRevenue: 50, seed: 9, clock });
    const b = await startApi({ seedRevenue: 50, seed: 9, clock });
    const query = `from=${new Date(clock.now() - 90 * DAY).toISOString()}&to=${new Date(clock.now()).toISOString()}`;
    const pick = (p: RevenuePage) => p.data.map((r) => [r.ts, r.amount]);
    expect(pick(await page(a, query))).toEqual(pick(await page(b, query)));
  });
});
