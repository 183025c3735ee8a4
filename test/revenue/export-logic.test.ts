// The export engine without a server: slice planning, exact totals, row formats (the
// spreadsheet-safe CSV cells, XLSX amounts), and the pipeline against an in-memory ledger:
// later slices finishing first still come out in ledger order, a failure fails it, no more
// pages are asked for at once than --concurrency says, and a run taken up from the slices
// an earlier run finished writes every row once.
import { createHash } from 'node:crypto';
import { mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DAY_MS, MAX_WINDOW_MS, parseWindow } from '../../src/lib/input/dates.js';
import { checkSlices, exportRevenue, saveSlice, type ExportOptions, type KeptSlice, type SavedSlice } from '../../src/lib/revenue/export.js';
import { apiVersion } from '../../src/lib/revenue/manifest.js';
import { publicUrl } from '../../src/lib/client/url.js';
import { amountCell, MAX_NUMBER_DIGITS } from '../../src/lib/revenue/xlsx.js';
import { formatStage, safeCell } from '../../src/lib/revenue/row-format.js';
import { Spool } from '../../src/lib/revenue/spool.js';
import { planSlices } from '../../src/lib/revenue/slices.js';
import { Grouping } from '../../src/lib/revenue/groups.js';
import { DecimalSum } from '../../src/lib/money.js';
import { REVENUE_COLUMNS, type RevenuePage, type RevenueRow } from '../../src/lib/schemas.js';
import { Decimal } from 'decimal.js';
import { FilterCheck, type RevenueFilters } from '../../src/lib/client/filters.js';

describe('planSlices', () => {
  it('cuts long windows into contiguous legal slices and short ones for parallel fetching', () => {
    const w200 = parseWindow('2026-01-01', '2026-07-19'); // 200 days
    for (const parallel of [1, 2, 3, 4, 7, 16]) {
      const slices = planSlices(w200, parallel);
      expect(slices[0]!.from).toEqual(w200.from);
      expect(slices.at(-1)!.to).toEqual(w200.to);
      for (const [i, s] of slices.entries()) {
        expect(s.to.getTime() - s.from.getTime()).toBeLessThanOrEqual(MAX_WINDOW_MS);
        if (i > 0) expect(s.from.getTime()).toBe(slices[i - 1]!.to.getTime() + 1);
      }
      expect(slices.length).toBeGreaterThanOrEqual(Math.min(parallel, 3));
    }
    expect(planSlices(w200, 1).map((s) => s.from.toISOString().slice(0, 10))).toEqual(['2026-01-01', '2026-04-01', '2026-06-30']);
    expect(planSlices(w200, 4).map((s) => s.from.toISOString().slice(0, 10))).toEqual(['2026-01-01', '2026-02-20', '2026-04-11', '2026-05-31']);
    // 90 whole days is one legal request; 91 is two.
    expect(planSlices(parseWindow('2026-01-01', '2026-03-31'), 1)).toHaveLength(1);
    expect(planSlices(parseWindow('2026-01-01', '2026-04-01'), 1)).toHaveLength(2);
    // Under a day: one slice, whatever the parallelism.
    expect(planSlices(parseWindow('2026-01-01T10:00:00Z', '2026-01-01T12:00:00Z'), 8)).toHaveLength(1);
    expect(planSlices(parseWindow('2026-01-01', '2026-01-10'), 4).map((s) => (s.to.getTime() - s.from.getTime() + 1) / DAY_MS)).toEqual([3, 3, 3, 1]);
  });
});

describe('DecimalSum', () => {
  it('sums exactly and keeps the widest scale', () => {
    const sum = new DecimalSum();
    for (const v of ['0.10', '0.20', '1.05', '12']) sum.add(v);
    expect(sum.toString()).toBe('13.35');
    expect(sum.equals('13.350')).toBe(true);
    const tenths = new DecimalSum();
    for (let i = 0; i < 10; i++) tenths.add('0.1');
    expect(tenths.toString()).toBe('1.0');
    expect(tenths.equals('1')).toBe(true);
  });
});

const row = (i: number, extra: Partial<RevenueRow> = {}): RevenueRow => ({
  transaction_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  merchant_id: 'm-1',
  merchant_reference: `ref-${i}`,
  terminal_id: null,
  crypto_currency: 'usdt',
  network: 'bep20',
  crypto_amount: '1.000000',
  amount: '1530.00',
  platform_fee: '15.30',
  share: '3.83',
  ts: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
  ...extra,
});

/** What a format stage writes for `rows`. */
async function formatted(format: 'csv' | 'json' | 'ndjson', rows: object[], opts: { rawCells?: boolean; excel?: boolean } = {}): Promise<string> {
  const stage = formatStage(format, opts);
  let text = '';
  stage.setEncoding('utf8').on('data', (d: string) => (text += d));
  const ended = new Promise((done) => stage.on('end', done));
  for (const r of rows) stage.write(r);
  stage.end();
  await ended;
  return text;
}

describe('row formats', () => {
  it('CSV: header in spec order, RFC 4180 quoting, CRLF, values verbatim; a bare CR or LF is quoted', async () => {
    const text = await formatted('csv', [row(1, { merchant_reference: 'a "quoted", ref\nline', amount: '1530.10' }), row(5, { merchant_id: 'a\nb', terminal_id: 'c\rd' })]);
    const [header, ...records] = text.split('\r\n');
    expect(header).toBe(REVENUE_COLUMNS.join(','));
    expect(records[0]).toBe(`${row(1).transaction_id},m-1,"a ""quoted"", ref\nline",,usdt,bep20,1.000000,1530.10,15.30,3.83,${row(1).ts}`);
    // RFC 4180 §2.6: or a strict reader splits the record.
    expect(records[1]).toContain(',"a\nb",ref-5,"c\rd",');
    expect(records.at(-1)).toBe('');
    // No rows: the header alone.
    expect(await formatted('csv', [])).toBe(`${REVENUE_COLUMNS.join(',')}\r\n`);
  });

  it('JSON: one array, one row a line; no rows is []; NDJSON one row a line', async () => {
    const text = await formatted('json', [row(1), row(2), row(3)]);
    expect(text).toBe(`[\n${[row(1), row(2), row(3)].map((r) => JSON.stringify(r)).join(',\n')}\n]\n`);
    expect(JSON.parse(text).map((r: RevenueRow) => r.merchant_reference)).toEqual(['ref-1', 'ref-2', 'ref-3']);
    expect(await formatted('json', [])).toBe('[]\n');
    expect(await formatted('ndjson', [row(1), row(2)])).toBe(`${JSON.stringify(row(1))}\n${JSON.stringify(row(2))}\n`);
    expect(await formatted('ndjson', [])).toBe('');
  });
});

/** An in-memory ledger answering like GET /revenue, with a delay per slice; `seen` counts the pages out at once. */
function fakeApi(rows: RevenueRow[], opts: { pageSize: number; delayFor?: (from: string) => number; failAt?: string; summaryOff?: number }) {
  const calls: string[] = [];
  const ignored: string[] = [];
  const seen = { inFlight: 0, peak: 0 };
  return {
    calls,
    ignored,
    seen,
    api: {
      revenue: {
        async page(q: { from: string; to: string; cursor?: string; limit?: number; include_summary?: boolean }, check?: FilterCheck<'revenue'>) {
          calls.push(`${q.from}|${q.cursor ?? ''}`);
          seen.peak = Math.max(seen.peak, ++seen.inFlight);
          try {
            await new Promise((r) => setTimeout(r, opts.delayFor?.(q.from) ?? 1));
          } finally {
            seen.inFlight--;
          }
          if (opts.failAt && q.from === opts.failAt && q.cursor) throw new Error('boom in a later page');
          const inWindow = rows.filter((r) => r.ts >= q.from && r.ts <= q.to);
          const start = q.cursor ? Number(q.cursor) : 0;
          const data = inWindow.slice(start, start + opts.pageSize);
          const more = start + opts.pageSize < inWindow.length;
          const page: RevenuePage = { data, has_more: more, limit: opts.pageSize, next_cursor: more ? String(start + opts.pageSize) : null };
          if (q.include_summary) {
            const share = new DecimalSum();
            inWindow.forEach((r) => share.add(r.share));
            page.summary = { from: q.from, to: q.to, total_partner_share: share.toString(), transaction_count: inWindow.length + (opts.summaryOff ?? 0) };
          }
          // A service that ignores the token filter: every pair's rows come back.
          const items = check ? data.filter((r) => check.keep(r)) : data;
          return { items, received: data, data: page, nextCursor: page.next_cursor, last: !more, location: 'data', ...(page.summary ? { summary: page.summary } : {}) };
        },
        filterCheck: (filters: RevenueFilters) => new FilterCheck('revenue', filters, {}, (f) => ignored.push(f.filter)),
      },
    } as unknown as ExportOptions['api'],
  };
}

/** An export of `slices` as NDJSON into memory; the rows written come back parsed. */
async function ndjsonExport(o: Omit<ExportOptions, 'format' | 'dest' | 'endDest'>) {
  const dest = new PassThrough();
  let text = '';
  dest.setEncoding('utf8').on('data', (d: string) => (text += d));
  const result = await exportRevenue({ ...o, format: formatStage('ndjson'), dest, endDest: true });
  return { ...result, text, written: text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as RevenueRow) };
}

/** Spools that keep their name in `dir`, counted as they are made and closed. */
function namedSpools(dir = mkdtempSync(join(tmpdir(), 'offramp-spool-test-'))) {
  const count = { made: 0, closed: 0 };
  return {
    dir,
    count,
    spool: (index: number) => {
      const spool = Spool.named(join(dir, `slice-${index}`));
      const close = spool.close.bind(spool);
      spool.close = () => close().then(() => void count.closed++);
      count.made++;
      return spool;
    },
  };
}

const refs = (rows: RevenueRow[]) => rows.map((r) => r.merchant_reference);

describe('exportRevenue', () => {
  const rows = Array.from({ length: 400 }, (_, i) => row(i, { ts: new Date(Date.UTC(2026, 0, 1) + i * 6 * 3_600_000).toISOString() })); // 100 days
  const window = parseWindow('2026-01-01', '2026-04-10');

  it('writes slices in ledger order although later slices finish first; its hash and length are those of the bytes written', async () => {
    const slices = planSlices(window, 4);
    expect(slices).toHaveLength(4);
    // The first slice is the slowest: the other three are read whole meanwhile.
    const { api } = fakeApi(rows, { pageSize: 7, delayFor: (from) => (from === slices[0]!.from.toISOString() ? 15 : 0) });
    const spools = namedSpools();
    const run = await ndjsonExport({ api, slices, concurrency: 4, summary: true, pageSize: 7, spool: spools.spool });
    expect(refs(run.written)).toEqual(refs(rows));
    expect(run.tallies.map((r) => r.rows).reduce((a, b) => a + b)).toBe(400);
    expect(checkSlices(run.tallies).every((c) => c.ok)).toBe(true);
    expect(run.bytes).toBe(Buffer.byteLength(run.text));
    expect(run.sha256).toBe(createHash('sha256').update(run.text).digest('hex'));
    // Every spool was closed (one with no name is then freed).
    expect(spools.count).toEqual({ made: 4, closed: 4 });
  });

  it('one failing slice fails the export with its error; every spool is closed', async () => {
    const slices = planSlices(window, 4);
    const { api } = fakeApi(rows, { pageSize: 7, failAt: slices[2]!.from.toISOString(), delayFor: (from) => (from === slices[0]!.from.toISOString() ? 30 : 0) });
    const spools = namedSpools();
    await expect(ndjsonExport({ api, slices, concurrency: 4, summary: false, pageSize: 7, spool: spools.spool })).rejects.toThrow('boom in a later page');
    expect(spools.count.made).toBeGreaterThan(0);
    expect(spools.count.closed).toBe(spools.count.made);
  });

  it('a summary that disagrees names the slice', async () => {
    const slices = planSlices(window, 2);
    const { api } = fakeApi(rows, { pageSize: 50, summaryOff: 1 });
    const checks = checkSlices((await ndjsonExport({ api, slices, concurrency: 2, summary: true, pageSize: 50 })).tallies);
    expect(checks.map((c) => c.ok)).toEqual([false, false]);
    expect(checks[0]!.problem).toMatch(/^\d+ rows exported, the service counts \d+$/);
  });

  it('a service that ignored --token: only matching rows are written, and the summary is checked against what it sent', async () => {
    const mixed = rows.map((r, i) => (i % 4 === 0 ? { ...r, crypto_currency: 'usdc', share: '1.01' } : r));
    const slices = planSlices(window, 2);
    const { api, ignored } = fakeApi(mixed, { pageSize: 50 });
    const { tallies, written } = await ndjsonExport({ api, slices, concurrency: 2, summary: true, pageSize: 50, filters: { crypto_currency: 'usdt' } });
    expect(written).toHaveLength(300);
    expect(new Set(written.map((r) => r.crypto_currency))).toEqual(new Set(['usdt']));
    expect(ignored).toEqual(['crypto_currency']);
    // Neither a false mismatch (the service's summary covers every pair) nor a false match.
    expect(checkSlices(tallies).every((c) => c.ok)).toBe(true);
    expect(tallies.reduce((n, r) => n + r.received, 0)).toBe(400);
    const share = tallies.reduce((sum, r) => sum.plus(r.share.toString()), new Decimal(0));
    expect(share.toFixed(2)).toBe(new Decimal('3.83').times(300).toFixed(2));
  });

  it('refuses a row outside the slice it asked for (it would be written twice)', async () => {
    const slices = planSlices(window, 1);
    const stray = [row(1, { ts: '2025-12-31T23:59:59.999Z' })];
    const api = {
      http: { observe: () => () => undefined },
      revenue: {
        page: async () => ({ items: stray, received: stray, data: stray, nextCursor: null, last: true, location: 'none' }),
        filterCheck: (f: RevenueFilters) => new FilterCheck('revenue', f, {}),
      },
    } as unknown as ExportOptions['api'];
    await expect(ndjsonExport({ api, slices, concurrency: 1, summary: false })).rejects.toThrow(/returned one stamped 2025-12-31T23:59:59.999Z/);
  });
});

describe('pages asked for at once: --concurrency, fixed', () => {
  const rows = Array.from({ length: 960 }, (_, i) => row(i, { ts: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString() })); // 40 days
  const slices = planSlices(parseWindow('2026-01-01', '2026-02-09'), 40);

  it.each([1, 3, 8])('at most %i out at once, and that many while slices wait', async (concurrency) => {
    const { api, seen } = fakeApi(rows, { pageSize: 4 });
    const run = await ndjsonExport({ api, slices, concurrency, summary: false, pageSize: 4 });
    expect(refs(run.written)).toEqual(refs(rows));
    expect(seen.peak).toBe(concurrency);
  });
});

describe('exportRevenue, resumed', () => {
  const rows = Array.from({ length: 400 }, (_, i) => row(i, { ts: new Date(Date.UTC(2026, 0, 1) + i * 6 * 3_600_000).toISOString() }));
  const window = parseWindow('2026-01-01', '2026-04-10');

  it('a run that failed midway, taken up from the slices it finished, writes every row exactly once and asks only for the others', async () => {
    const slices = planSlices(window, 4);
    const spools = namedSpools();
    const finished = new Map<number, SavedSlice>();
    const { api: failing } = fakeApi(rows, { pageSize: 7, failAt: slices[2]!.from.toISOString() });
    await expect(
      ndjsonExport({ api: failing, slices, concurrency: 1, summary: true, pageSize: 7, spool: spools.spool, onSliceDone: async (r, bytes) => void finished.set(r.index, saveSlice(r, bytes)) }),
    ).rejects.toThrow('boom in a later page');
    expect([...finished.keys()]).toEqual([0, 1]);

    const kept = new Map<number, KeptSlice>();
    for (const [index, saved] of finished) kept.set(index, { saved, spool: new Spool(openSync(join(spools.dir, `slice-${index}`), 'r'), saved.bytes) });
    const { api, calls } = fakeApi(rows, { pageSize: 7 });
    const run = await ndjsonExport({ api, slices, concurrency: 4, summary: true, pageSize: 7, kept, spool: spools.spool });
    expect(refs(run.written)).toEqual(refs(rows));
    expect(new Set(calls.map((c) => c.split('|')[0]))).toEqual(new Set([slices[2]!.from.toISOString(), slices[3]!.from.toISOString()]));
    expect(checkSlices(run.tallies).every((c) => c.ok)).toBe(true);
    expect(run.tallies.reduce((n, r) => n + r.rows, 0)).toBe(400);
  });
});

describe('spreadsheet-safe CSV cells', () => {
  it("a cell starting like a formula gets a leading '; plain decimals in amount columns do not", () => {
    for (const text of ['=1+1', '+1', '-1+2', '@SUM(A1)', '\t=1', '\r=1', '\uFF1D1', '\uFF0B1', '\uFF0D1', '\uFF201']) {
      expect(safeCell(text, 'merchant_reference')).toBe(`'${text}`);
      expect(safeCell(text, 'share')).toBe(`'${text}`);
    }
    expect(safeCell('-3.83', 'share')).toBe('-3.83');
    expect(safeCell('-12', 'amount')).toBe('-12');
    // In a text column even a plain number is guarded: it is free text a seller typed.
    expect(safeCell('-5', 'merchant_id')).toBe("'-5");
    for (const text of ['ref-1', 'a=b', ' =1', '', '0.10']) expect(safeCell(text, 'merchant_reference')).toBe(text);
  });

  it('the CSV stage guards by default, not with rawCells; --excel adds a byte order mark', async () => {
    const hostile = row(1, { merchant_reference: '=HYPERLINK("x")', share: '-1.00' });
    expect(await formatted('csv', [hostile])).toContain(`,"'=HYPERLINK(""x"")",`);
    expect(await formatted('csv', [hostile])).toContain(',-1.00,');
    expect(await formatted('csv', [hostile], { rawCells: true })).toContain(`,"=HYPERLINK(""x"")",`);
    expect((await formatted('csv', [hostile], { excel: true })).startsWith('\uFEFFtransaction_id,')).toBe(true);
    expect(await formatted('ndjson', [hostile])).toBe(`${JSON.stringify(hostile)}\n`);
  });
});

describe('XLSX amount cells (issue 17)', () => {
  it('a number when a spreadsheet holds it exactly (at most 15 significant digits), shown at the ledger scale', () => {
    expect(amountCell('1530.10')).toEqual({ value: 1530.1, numFmt: '0.00' });
    expect(amountCell('6.535948')).toEqual({ value: 6.535948, numFmt: '0.000000' });
    expect(amountCell('-3.83')).toEqual({ value: -3.83, numFmt: '0.00' });
    expect(amountCell('12')).toEqual({ value: 12, numFmt: '0' });
    expect(amountCell('123456789012345')).toEqual({ value: 123456789012345, numFmt: '0' });
    expect(amountCell('1000000000000000000000')).toEqual({ value: 1e21, numFmt: '0' });
  });

  it('text, digit for digit, beyond 15 significant digits or when not a decimal', () => {
    for (const text of ['1234567890123456', '99999999999999.99', '12345678901234567.89', '0.1234567890123456']) {
      expect(amountCell(text)).toEqual({ value: text });
      expect(new Decimal(text).sd()).toBeGreaterThan(MAX_NUMBER_DIGITS);
    }
    expect(amountCell('n/a')).toEqual({ value: 'n/a' });
    expect(amountCell(null)).toEqual({ value: null });
  });
});

describe("an export's sums", () => {
  it('per token, out of months × tokens: exact, in token order, whatever the month', () => {
    const sums = new Grouping({ by: ['month', 'token'], zone: 'UTC', window: parseWindow('2026-01-01', '2026-03-31') });
    const at = (ts: string) => ({ ts, network: 'bep20', merchant_id: null, terminal_id: null });
    sums.add({ ...at('2026-01-05T00:00:00Z'), crypto_currency: 'usdt', crypto_amount: '0.100000', amount: '0.10', platform_fee: '0.01', share: '0.02' });
    sums.add({ ...at('2026-03-05T00:00:00Z'), crypto_currency: 'usdt', crypto_amount: '0.200000', amount: '0.20', platform_fee: '0.01', share: '-0.01' });
    sums.add({ ...at('2026-02-05T00:00:00Z'), crypto_currency: 'usdc', crypto_amount: '1.5', amount: '1500.00', platform_fee: '15.00', share: '3.75' });
    expect(sums.tokens()).toEqual({
      usdc: { rows: 1, crypto_amount: '1.5', amount: '1500.00', platform_fee: '15.00', share: '3.75' },
      usdt: { rows: 2, crypto_amount: '0.300000', amount: '0.30', platform_fee: '0.02', share: '0.01' },
    });
    expect(sums.total()).toMatchObject({ transactions: 3, amount: '1500.30', platform_fee: '15.02', share: '3.76' });
    expect(sums.rollup(['month']).rows().map((g) => [g.group.month, g.transactions, g.share])).toEqual([
      ['2026-01', 1, '0.02'],
      ['2026-02', 1, '3.75'],
      ['2026-03', 1, '-0.01'],
    ]);
  });

  it('the manifest names the API version and never carries credentials', () => {
    expect(publicUrl('https://user:secret@api.example.test/api/v1/partner/')).toBe('https://api.example.test/api/v1/partner');
    expect(apiVersion('http://127.0.0.1:4010/api/v1/partner')).toBe('v1');
    expect(apiVersion('http://127.0.0.1:4010/partner')).toBeNull();
  });
});
