// The export engine without a server: slice planning, exact totals, row formats (the
// spreadsheet-safe CSV cells, XLSX amounts), the adaptive limit, the ordered writer (later
// slices finishing first still come out in ledger order, through spools that are removed
// afterwards), and a run taken up from its checkpoint marks.
import { createWriteStream, existsSync, readdirSync, readFileSync, mkdtempSync, rmSync, truncateSync } from 'node:fs';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DAY_MS, MAX_WINDOW_MS, parseWindow } from '../../src/lib/input/dates.js';
import { checkSlices, exportRevenue, type PageMark } from '../../src/lib/revenue/export.js';
import { AdaptiveLimit } from '../../src/lib/revenue/adaptive-limit.js';
import { apiVersion, publicUrl } from '../../src/lib/revenue/manifest.js';
import { amountCell, MAX_NUMBER_DIGITS } from '../../src/lib/revenue/xlsx.js';
import { OrderedOutput } from '../../src/lib/revenue/ordered-output.js';
import { rowFormatter, safeCell } from '../../src/lib/revenue/row-format.js';
import { planSlices } from '../../src/lib/revenue/slices.js';
import { DecimalSum, TokenTotals } from '../../src/lib/revenue/totals.js';
import { REVENUE_COLUMNS, type RevenuePage, type RevenueRow } from '../../src/lib/schemas.js';
import { Decimal } from 'decimal.js';
import { FilterCheck, type RevenueFilters } from '../../src/lib/client/filters.js';
import { csvStream } from '../../src/lib/output/csv.js';

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

describe('row formats', () => {
  it('CSV: header in spec order, RFC 4180 quoting, CRLF, values verbatim', () => {
    const f = rowFormatter('csv');
    expect(f.header).toBe('transaction_id,merchant_id,merchant_reference,terminal_id,crypto_currency,network,crypto_amount,amount,platform_fee,share,ts\r\n');
    const text = f.rows([row(1, { merchant_reference: 'a "quoted", ref\nline', amount: '1530.10' })]);
    expect(text).toBe(`${row(1).transaction_id},m-1,"a ""quoted"", ref\nline",,usdt,bep20,1.000000,1530.10,15.30,3.83,${row(1).ts}\r\n`);
  });

  it('CSV: the same bytes as csv-stringify (the output layer) on awkward values', async () => {
    const rows = [
      row(1),
      row(2, { merchant_reference: 'comma, inside', terminal_id: 'quote " inside', merchant_id: 'crlf\r\ninside' }),
      row(3, { merchant_reference: '  spaces  ', terminal_id: '', merchant_id: null }),
      row(4, { merchant_reference: 'ünïcødé ₦', share: '0.01' }),
    ];
    const stream = csvStream(REVENUE_COLUMNS);
    let expected = '';
    stream.on('data', (d: Buffer) => (expected += d.toString()));
    for (const r of rows) stream.write(r);
    stream.end();
    await new Promise((done) => stream.on('end', done));
    const f = rowFormatter('csv');
    expect(f.header + f.rows(rows.slice(0, 2)) + f.separator + f.rows(rows.slice(2))).toBe(expected);
    // A bare CR or LF is quoted too (RFC 4180 §2.6), or a strict reader splits the record.
    expect(f.rows([row(5, { merchant_id: 'a\nb', terminal_id: 'c\rd' })])).toContain(',"a\nb",ref-5,"c\rd",');
  });

  it('JSON: valid however the rows were split into batches', () => {
    const f = rowFormatter('json');
    const text = f.header + f.rows([row(1)]) + f.separator + f.rows([row(2), row(3)]) + f.footer(3);
    expect(JSON.parse(text).map((r: RevenueRow) => r.merchant_reference)).toEqual(['ref-1', 'ref-2', 'ref-3']);
    expect(JSON.parse(f.header + f.footer(0))).toEqual([]);
  });
});

/** An in-memory ledger answering like GET /revenue, with a delay per slice. */
function fakeApi(rows: RevenueRow[], opts: { pageSize: number; delayFor?: (from: string) => number; failAt?: string; summaryOff?: number }) {
  const calls: string[] = [];
  const ignored: string[] = [];
  return {
    calls,
    ignored,
    api: {
      revenue: {
        async page(q: { from: string; to: string; cursor?: string; limit?: number; include_summary?: boolean }, check?: FilterCheck<'revenue'>) {
          calls.push(`${q.from}|${q.cursor ?? ''}`);
          await new Promise((r) => setTimeout(r, opts.delayFor?.(q.from) ?? 0));
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
    } as never,
  };
}

describe('exportRevenue', () => {
  const rows = Array.from({ length: 400 }, (_, i) => row(i, { ts: new Date(Date.UTC(2026, 0, 1) + i * 6 * 3_600_000).toISOString() })); // 100 days
  const window = parseWindow('2026-01-01', '2026-04-10');

  it('writes slices in ledger order although later slices finish first, and removes its spools', async () => {
    const slices = planSlices(window, 4);
    expect(slices).toHaveLength(4);
    const tempRoot = mkdtempSync(join(tmpdir(), 'offramp-spool-test-'));
    // The first slice is the slowest: the other three are spooled meanwhile.
    const { api } = fakeApi(rows, { pageSize: 7, delayFor: (from) => (from === slices[0]!.from.toISOString() ? 15 : 0) });
    const out = new PassThrough();
    let text = '';
    out.setEncoding('utf8').on('data', (d: string) => (text += d));
    const output = new OrderedOutput(out, rowFormatter('ndjson'), slices.length, tempRoot);
    const reports = await exportRevenue({ api, slices, concurrency: 4, summary: true, output, pageSize: 7 });
    const got = text.trim().split('\n').map((l) => JSON.parse(l).merchant_reference);
    expect(got).toEqual(rows.map((r) => r.merchant_reference));
    expect(reports.map((r) => r.rows).reduce((a, b) => a + b)).toBe(400);
    expect(checkSlices(reports).every((c) => c.ok)).toBe(true);
    expect(readdirSync(tempRoot)).toEqual([]);
  });

  it('one failing slice fails the export with its error; nothing is left behind', async () => {
    const slices = planSlices(window, 4);
    const tempRoot = mkdtempSync(join(tmpdir(), 'offramp-spool-test-'));
    const { api } = fakeApi(rows, { pageSize: 7, failAt: slices[2]!.from.toISOString(), delayFor: (from) => (from === slices[0]!.from.toISOString() ? 30 : 0) });
    const output = new OrderedOutput(new PassThrough().resume(), rowFormatter('csv'), slices.length, tempRoot);
    await expect(exportRevenue({ api, slices, concurrency: 4, summary: false, output, pageSize: 7 })).rejects.toThrow('boom in a later page');
    expect(readdirSync(tempRoot)).toEqual([]);
  });

  it('a summary that disagrees names the slice', async () => {
    const slices = planSlices(window, 2);
    const { api } = fakeApi(rows, { pageSize: 50, summaryOff: 1 });
    const output = new OrderedOutput(new PassThrough().resume(), rowFormatter('csv'), slices.length);
    const checks = checkSlices(await exportRevenue({ api, slices, concurrency: 2, summary: true, output, pageSize: 50 }));
    expect(checks.map((c) => c.ok)).toEqual([false, false]);
    expect(checks[0]!.problem).toMatch(/^\d+ rows exported, the service counts \d+$/);
  });

  it('a service that ignored --token: only matching rows are written, and the summary is checked against what it sent', async () => {
    const mixed = rows.map((r, i) => (i % 4 === 0 ? { ...r, crypto_currency: 'usdc', share: '1.01' } : r));
    const slices = planSlices(window, 2);
    const { api, ignored } = fakeApi(mixed, { pageSize: 50 });
    const out = new PassThrough();
    let text = '';
    out.on('data', (d) => (text += d));
    const output = new OrderedOutput(out, rowFormatter('ndjson'), slices.length);
    const reports = await exportRevenue({ api, slices, concurrency: 2, summary: true, output, pageSize: 50, filters: { crypto_currency: 'usdt' } });
    const written = text.trim().split('\n').map((l) => JSON.parse(l) as RevenueRow);
    expect(written).toHaveLength(300);
    expect(new Set(written.map((r) => r.crypto_currency))).toEqual(new Set(['usdt']));
    expect(ignored).toEqual(['crypto_currency']);
    // Neither a false mismatch (the service's summary covers every pair) nor a false match.
    expect(checkSlices(reports).every((c) => c.ok)).toBe(true);
    expect(reports.reduce((n, r) => n + r.received, 0)).toBe(400);
    const share = reports.reduce((sum, r) => sum.plus(r.share.toString()), new Decimal(0));
    expect(share.toFixed(2)).toBe(new Decimal('3.83').times(300).toFixed(2));
  });

  it('refuses a row outside the slice it asked for (it would be written twice)', async () => {
    const slices = planSlices(window, 1);
    const stray = [row(1, { ts: '2025-12-31T23:59:59.999Z' })];
    const api = {
      revenue: {
        page: async () => ({ items: stray, received: stray, data: stray, nextCursor: null, last: true, location: 'none' }),
        filterCheck: (f: RevenueFilters) => new FilterCheck('revenue', f, {}),
      },
    } as never;
    const output = new OrderedOutput(new PassThrough().resume(), rowFormatter('csv'), slices.length);
    await expect(exportRevenue({ api, slices, concurrency: 1, summary: false, output })).rejects.toThrow(/returned one stamped 2025-12-31T23:59:59.999Z/);
  });

  it('spools larger than the copy buffer reach a file and a socket byte for byte', async () => {
    const lines = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `{"slice":"${tag}","line":${i},"pad":"${'x'.repeat(i % 97)}"}\n`).join('');
    // Slices 2 and 3 are written (spooled) before slice 1 is promoted: ~1.3 MB each, so the
    // copy reuses its 256 KB buffer several times per spool.
    const texts = [lines('a', 5_000), lines('b', 20_000), lines('c', 20_000)];
    const run = async (out: Writable) => {
      const output = new OrderedOutput(out, rowFormatter('ndjson'), 3, mkdtempSync(join(tmpdir(), 'offramp-spool-test-')));
      await output.start();
      const spooled = [output.slices[1]!.writeText(texts[1]!, 20_000), output.slices[2]!.writeText(texts[2]!, 20_000)];
      await Promise.all(spooled);
      for (const [i, sink] of output.slices.entries()) {
        await sink.promote();
        if (i === 0) await sink.writeText(texts[0]!, 5_000);
      }
      await output.finish();
      await output.cleanup();
      expect(output.rowsWritten).toBe(45_000);
    };

    const dir = mkdtempSync(join(tmpdir(), 'offramp-copy-test-'));
    const file = createWriteStream(join(dir, 'out.ndjson'));
    // A slow disk: each write starts a little later, so a buffer reused before its write
    // finished would reach the file overwritten.
    const slow = file as unknown as { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
    for (const method of ['_write', '_writev'] as const) {
      const real = slow[method].bind(file);
      slow[method] = (...args: unknown[]) => setTimeout(() => real(...args), 2);
    }
    await run(file);
    file.end();
    await once(file, 'close');
    expect(readFileSync(join(dir, 'out.ndjson'), 'utf8')).toBe(texts.join(''));
    rmSync(dir, { recursive: true, force: true });

    const received: Buffer[] = [];
    const server = createServer((socket) => socket.on('data', (d: Buffer) => received.push(d)));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const closed = new Promise<void>((done) => server.on('connection', (socket) => socket.on('end', done)));
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await once(client, 'connect');
    await run(client);
    client.end();
    await closed;
    server.close();
    expect(Buffer.concat(received).toString('utf8')).toBe(texts.join(''));
  });

  it('the tempdir is not created when no slice has to wait', async () => {
    const slices = planSlices(window, 1);
    const tempRoot = mkdtempSync(join(tmpdir(), 'offramp-spool-test-'));
    const { api } = fakeApi(rows, { pageSize: 100 });
    const output = new OrderedOutput(new PassThrough().resume(), rowFormatter('csv'), slices.length, tempRoot);
    await exportRevenue({ api, slices, concurrency: 1, summary: false, output });
    expect(existsSync(tempRoot) && readdirSync(tempRoot)).toEqual([]);
  });
});

describe('spreadsheet-safe CSV cells (issue 17)', () => {
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

  it('the CSV formatter guards by default, not with rawCells; --excel adds a byte order mark', () => {
    const hostile = row(1, { merchant_reference: '=HYPERLINK("x")', share: '-1.00' });
    expect(rowFormatter('csv').rows([hostile])).toContain(`,"'=HYPERLINK(""x"")",`);
    expect(rowFormatter('csv').rows([hostile])).toContain(',-1.00,');
    expect(rowFormatter('csv', { rawCells: true }).rows([hostile])).toContain(`,"=HYPERLINK(""x"")",`);
    expect(rowFormatter('csv', { excel: true }).header.startsWith('\uFEFFtransaction_id,')).toBe(true);
    expect(rowFormatter('ndjson').rows([hostile])).toBe(`${JSON.stringify(hostile)}\n`);
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

describe('TokenTotals', () => {
  it('sums per token exactly, merges, and survives a checkpoint round trip', () => {
    const a = new TokenTotals();
    a.add({ crypto_currency: 'usdt', crypto_amount: '0.100000', amount: '0.10', platform_fee: '0.01', share: '0.02' });
    a.add({ crypto_currency: 'usdt', crypto_amount: '0.200000', amount: '0.20', platform_fee: '0.01', share: '-0.01' });
    const b = new TokenTotals();
    b.add({ crypto_currency: 'usdc', crypto_amount: '1.5', amount: '1500.00', platform_fee: '15.00', share: '3.75' });
    a.merge(TokenTotals.fromJSON(JSON.parse(JSON.stringify(b.toJSON()))));
    expect(a.toJSON()).toEqual({
      usdc: { rows: 1, crypto_amount: '1.5', amount: '1500.00', platform_fee: '15.00', share: '3.75' },
      usdt: { rows: 2, crypto_amount: '0.300000', amount: '0.30', platform_fee: '0.02', share: '0.01' },
    });
    expect(a.fiat()).toEqual({ amount: '1500.30', platform_fee: '15.02', share: '3.76' });
  });

  it('the manifest names the API version and never carries credentials', () => {
    expect(publicUrl('https://user:secret@api.example.test/api/v1/partner/')).toBe('https://api.example.test/api/v1/partner');
    expect(apiVersion('http://127.0.0.1:4010/api/v1/partner')).toBe('v1');
    expect(apiVersion('http://127.0.0.1:4010/partner')).toBeNull();
  });
});

describe('AdaptiveLimit (issue 17)', () => {
  function clock() {
    let t = 0;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  }

  it('grows by one after as many clean answers as it allows, only while it binds, up to max', async () => {
    const c = clock();
    const limit = new AdaptiveLimit({ start: 2, max: 3, now: c.now });
    for (let round = 0; round < 3; round++) {
      const tickets = await Promise.all(Array.from({ length: limit.limit }, () => limit.acquire(0)));
      c.advance(100);
      for (const t of tickets) limit.release(t);
    }
    expect(limit.limit).toBe(3);
    // One request at a time never proves that more would be answered: no growth.
    const lone = new AdaptiveLimit({ start: 2, max: 16, now: c.now });
    for (let i = 0; i < 20; i++) {
      const t = await lone.acquire(0);
      c.advance(100);
      lone.release(t);
    }
    expect(lone.limit).toBe(2);
  });

  it('an answer that waited (the client honoured a Retry-After) cuts the limit by a quarter, once per round', async () => {
    const c = clock();
    const limit = new AdaptiveLimit({ start: 8, max: 16, now: c.now });
    for (let i = 0; i < 8; i++) {
      const t = await limit.acquire(0);
      c.advance(100);
      limit.release(t);
    }
    const tickets = await Promise.all(Array.from({ length: 8 }, () => limit.acquire(0)));
    c.advance(1_300);
    for (const t of tickets) limit.release(t);
    expect(limit.limit).toBe(6);
    expect(limit.stats.throttled).toBe(8);
  });

  it('a 429 the client gave up on pauses everyone for its Retry-After; earlier slices go first', async () => {
    const limit = new AdaptiveLimit({ start: 1, max: 1 });
    const t = await limit.acquire(0);
    limit.release(t, { retryAfterMs: 30 });
    expect(limit.limit).toBe(1);
    const order: number[] = [];
    const waits = [3, 1, 2].map((p) => limit.acquire(p).then((ticket) => (order.push(p), limit.release(ticket))));
    await Promise.all(waits);
    expect(order).toEqual([1, 2, 3]);
  });

  it('a waiter leaves when its signal aborts', async () => {
    const limit = new AdaptiveLimit({ start: 1, max: 1 });
    const held = await limit.acquire(0);
    const stop = new AbortController();
    const waiting = limit.acquire(1, stop.signal);
    stop.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    limit.release(held);
  });
});

describe('exportRevenue, resumed (issue 17)', () => {
  const rows = Array.from({ length: 400 }, (_, i) => row(i, { ts: new Date(Date.UTC(2026, 0, 1) + i * 6 * 3_600_000).toISOString() }));
  const window = parseWindow('2026-01-01', '2026-04-10');

  it('a run that failed midway, taken up from its page marks (one spool cut short), writes every row exactly once', async () => {
    const slices = planSlices(window, 4);
    const spools = mkdtempSync(join(tmpdir(), 'offramp-resume-unit-'));
    let n = 0;
    const place = { spoolPath: async (i: number) => join(spools, `slice-${i}-${n++}`) };
    const marks = new Map<number, PageMark>();
    const { api: failing } = fakeApi(rows, { pageSize: 7, failAt: slices[2]!.from.toISOString(), delayFor: (from) => (from === slices[0]!.from.toISOString() ? 5 : 0) });
    const first = new OrderedOutput(new PassThrough().resume(), rowFormatter('ndjson'), slices.length, { spools: place, spoolAll: true });
    await expect(
      exportRevenue({ api: failing, slices, concurrency: 4, summary: true, totals: true, output: first, pageSize: 7, onPageWritten: (m) => marks.set(m.index, m) }),
    ).rejects.toThrow('boom in a later page');
    expect(marks.size).toBeGreaterThan(0);

    // One spool lost its last bytes (never flushed before a crash): that slice starts over.
    const cut = [...marks.values()].find((m) => m.spool && m.spool.bytes > 0)!;
    truncateSync(cut.spool!.path, cut.spool!.bytes - 1);

    const { api } = fakeApi(rows, { pageSize: 7 });
    const out = new PassThrough();
    let text = '';
    out.setEncoding('utf8').on('data', (d: string) => (text += d));
    const second = new OrderedOutput(out, rowFormatter('ndjson'), slices.length, { spools: place, spoolAll: true });
    const resume = slices.map((_, i) => marks.get(i));
    const reports = await exportRevenue({ api, slices, concurrency: 4, summary: true, totals: true, output: second, pageSize: 7, resume });
    const got = text.trim().split('\n').map((l) => JSON.parse(l).merchant_reference);
    expect(got).toEqual(rows.map((r) => r.merchant_reference));
    expect(checkSlices(reports).every((c) => c.ok)).toBe(true);
    expect(reports.reduce((t, r) => t + (r.totals.toJSON().usdt?.rows ?? 0), 0)).toBe(400);
  });
});
