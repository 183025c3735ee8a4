// `revenue summary --by`: groups by calendar period (in --tz) and by token, network,
// merchant, terminal, whose figures equal, to the last digit, the sums of the rows that
// `revenue export` writes for the same window and filters (random ledgers with 18-decimal
// token amounts and months without a row); tables for a person on a terminal (thousands
// grouped, a bar per period, 80 columns) and plain when piped.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exactSum } from '../helpers/decimal.js';
import { runMain } from '../helpers/main.js';
import { runInPty, screenOf } from '../helpers/pty.js';
import { periodOf, periodsIn, startOfDay } from '../../src/lib/revenue/periods.js';
import { freshDir, ledgerRow } from './export-helpers.js';
import { ledgerServer, randomLedger, type Row } from './ledger-server.js';

const KEY = 'sk_test_summary_by_0001';
const FROM = '2026-01-01';
const TO = '2026-04-30';

type Figures = { transactions: number; amount: string; platform_fee: string; share: string; crypto_amounts: Record<string, string> };
type Grouped = { rows: (Figures & Record<string, unknown>)[]; total: Figures; by: string[] };

async function cli(server: { baseUrl: string }, args: string[], columns?: number) {
  return runMain(args, { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl }, ...(columns ? { columns } : {}) });
}

/** The figures of `rows` as the test sums them, independently of the CLI (BigInt). */
function figuresOf(rows: Row[]): Figures {
  const tokens = [...new Set(rows.map((r) => r.crypto_currency))].sort();
  const sum = (values: string[]) => (values.length ? exactSum(values) : '0');
  return {
    transactions: rows.length,
    amount: sum(rows.map((r) => r.amount)),
    platform_fee: sum(rows.map((r) => r.platform_fee)),
    share: sum(rows.map((r) => r.share)),
    crypto_amounts: Object.fromEntries(tokens.map((t) => [t, sum(rows.filter((r) => r.crypto_currency === t).map((r) => r.crypto_amount))])),
  };
}

/** The test's own key of a row for a dimension (UTC): periods from the ISO text, the rest from the fields. */
const keyOf: Record<string, (r: Row) => string | null> = {
  day: (r) => r.ts.slice(0, 10),
  month: (r) => r.ts.slice(0, 7),
  quarter: (r) => `${r.ts.slice(0, 4)}-Q${Math.ceil(Number(r.ts.slice(5, 7)) / 3)}`,
  token: (r) => r.crypto_currency,
  network: (r) => r.network,
  merchant: (r) => r.merchant_id,
  terminal: (r) => r.terminal_id,
};

describe('revenue summary --by: the export’s sums, to the last digit', { timeout: 120_000 }, () => {
  const cases: [seed: number, by: string, filter: string[]][] = [
    [1, 'month', []],
    [2, 'month,token', []],
    [3, 'day', ['--token', 'usdc']],
    [4, 'quarter,network', []],
    [5, 'merchant,terminal', ['--network', 'trc20']],
    [6, 'token', []],
    [7, 'month', ['--token', 'cngn']],
    [8, 'week,token', []],
  ];
  it.each(cases)('ledger %i by %s %j', async (seed, by, filter) => {
    const ledger = randomLedger(seed, `${FROM}T00:00:00Z`, `${TO}T23:59:59Z`, 400);
    const server = await ledgerServer(ledger);
    try {
      const dir = freshDir('offramp-summary-by-');
      const exported = await cli(server, ['revenue', 'export', '--from', FROM, '--to', TO, ...filter, '-o', 'ndjson', '--out', join(dir, 'rows.ndjson'), '--manifest', join(dir, 'm.json')]);
      expect(exported.code, exported.stderr).toBe(0);
      const rows = readFileSync(join(dir, 'rows.ndjson'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row);
      const manifest = JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8'));

      const exportRequests = server.requests.length;
      const r = await cli(server, ['revenue', 'summary', '--from', FROM, '--to', TO, ...filter, '--by', by, '--json']);
      expect(r.code, r.stderr).toBe(0);
      // Read as the export reads: no more requests than it sent.
      expect(server.requests.length - exportRequests).toBeLessThanOrEqual(exportRequests);
      const s = JSON.parse(r.stdout) as Grouped;
      // The total: the manifest's figures of the export, digit for digit.
      expect(s.total.transactions).toBe(manifest.rows);
      expect(s.total.amount).toBe(manifest.totals.fiat.amount);
      expect(s.total.platform_fee).toBe(manifest.totals.fiat.platform_fee);
      expect(s.total.share).toBe(manifest.totals.fiat.share);
      expect(s.total.crypto_amounts).toEqual(Object.fromEntries(Object.entries(manifest.totals.tokens as Record<string, { crypto_amount: string }>).map(([t, v]) => [t, v.crypto_amount])));
      if (rows.length) expect(s.total).toEqual(figuresOf(rows));
      // Each group: the exported rows of that group, summed by the test.
      const dims = by.split(',');
      const testable = dims.filter((d) => keyOf[d]);
      for (const g of s.rows) {
        const mine = rows.filter((row) => testable.every((d) => keyOf[d]!(row) === g[d]));
        if (g.transactions === 0) {
          expect(mine.filter((row) => dims.every((d) => !keyOf[d] || keyOf[d]!(row) === g[d]))).toHaveLength(0);
          expect(g).toMatchObject({ amount: '0', platform_fee: '0', share: '0', crypto_amounts: {} });
        } else if (testable.length === dims.length) {
          expect(g, JSON.stringify(g)).toMatchObject(figuresOf(mine));
        }
      }
      // The groups add up to the total, every row counted once.
      expect(s.rows.reduce((n, g) => n + g.transactions, 0)).toBe(rows.length);
      expect(exactSum(['0', ...s.rows.map((g) => g.share)])).toBe(exactSum(['0', ...rows.map((x) => x.share)]));
      // By a period, every period of the window is a row, empty ones included.
      const period = dims.find((d) => ['day', 'week', 'month', 'quarter'].includes(d));
      if (period) {
        const want = periodsIn({ from: new Date(`${FROM}T00:00:00Z`), to: new Date(`${TO}T23:59:59.999Z`) }, period as 'month', 'UTC');
        expect([...new Set(s.rows.map((g) => g[period]))]).toEqual(want);
      }
    } finally {
      await server.close();
    }
  });
});

describe('periods', () => {
  it('ISO weeks start on Monday; the week-year at the year’s ends', () => {
    expect(periodOf('2026-01-01T12:00:00Z', 'week', 'UTC')).toBe('2026-W01'); // a Thursday
    expect(periodOf('2025-12-29T00:00:00Z', 'week', 'UTC')).toBe('2026-W01'); // its Monday
    expect(periodOf('2025-12-28T23:59:59.999Z', 'week', 'UTC')).toBe('2025-W52'); // the Sunday before
    expect(periodOf('2027-01-01T00:00:00Z', 'week', 'UTC')).toBe('2026-W53');
    expect(periodOf('2026-11-15T00:00:00Z', 'quarter', 'UTC')).toBe('2026-Q4');
  });

  it('a row is placed by its instant on the zone’s calendar', () => {
    expect(periodOf('2026-10-31T23:30:00Z', 'month', 'UTC')).toBe('2026-10');
    expect(periodOf('2026-10-31T23:30:00Z', 'month', 'Africa/Lagos')).toBe('2026-11');
    expect(periodOf('2026-11-01T00:30:00+01:00', 'day', 'UTC')).toBe('2026-10-31');
    expect(periodOf('2026-03-01T04:00:00Z', 'day', 'America/New_York')).toBe('2026-02-28');
    expect(startOfDay('2026-11-01', 'Africa/Lagos').toISOString()).toBe('2026-10-31T23:00:00.000Z');
    // London changes its offset on 2026-03-29 and 2026-10-25.
    expect(startOfDay('2026-03-29', 'Europe/London').toISOString()).toBe('2026-03-29T00:00:00.000Z');
    expect(startOfDay('2026-10-25', 'Europe/London').toISOString()).toBe('2026-10-24T23:00:00.000Z');
  });
});

describe('revenue summary --tz and bad input', () => {
  it('--tz: plain days are days of the zone, and rows go to the zone’s month', async () => {
    const rows = [ledgerRow(1, '2026-10-31T23:30:00.000Z'), ledgerRow(2, '2026-10-31T22:30:00.000Z'), ledgerRow(3, '2026-09-30T23:30:00.000Z')];
    const server = await ledgerServer(rows);
    try {
      const r = await cli(server, ['revenue', 'summary', '--from', '2026-10-01', '--to', '2026-10-31', '--by', 'month', '--tz', 'Africa/Lagos', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout);
      expect(s).toMatchObject({ from: '2026-09-30T23:00:00.000Z', to: '2026-10-31T22:59:59.999Z', tz: 'Africa/Lagos' });
      // Row 3 is 1 October in Lagos; row 1 is 1 November there, outside the window.
      expect(s.rows).toEqual([expect.objectContaining({ month: '2026-10', transactions: 2 })]);
    } finally {
      await server.close();
    }
  });

  it.each([
    [['--by', 'fortnight'], /--by: "fortnight" is not a grouping/],
    [['--by', 'month,week'], /--by: one calendar period at a time/],
    [['--by', 'token,token'], /names a grouping twice/],
    [['--tz', 'Mars/Olympus'], /--tz: "Mars\/Olympus" is not a time zone/],
  ])('%j is a usage error, nothing fetched', async (flags, message) => {
    const server = await ledgerServer([], 0);
    try {
      const r = await cli(server, ['revenue', 'summary', '--from', FROM, '--to', TO, '--by', 'month', ...flags]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe('revenue summary tables', { timeout: 60_000 }, () => {
  const big = [
    ledgerRow(1, '2026-01-15T10:00:00.000Z', { amount: '999999999.99', platform_fee: '9999999.99', share: '249951761.16' }),
    ledgerRow(2, '2026-02-15T10:00:00.000Z', { amount: '500000000.00', platform_fee: '5000000.00', share: '124975880.58' }),
    ledgerRow(3, '2026-04-15T10:00:00.000Z', { amount: '1000.00', platform_fee: '10.00', share: '2.50' }),
  ];

  it('piped: plain decimals, no bar; CSV one record per group', async () => {
    const server = await ledgerServer(big);
    try {
      const r = await cli(server, ['revenue', 'summary', '--from', FROM, '--to', TO, '--by', 'month']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^2026-01 +1 +999999999\.99 +9999999\.99 +249951761\.16$/m);
      expect(r.stdout).toMatch(/^2026-03 +0 +0 +0 +0$/m);
      expect(r.stdout).not.toMatch(/[█▏▎▍▌▋▊▉,]/);
      const csv = await cli(server, ['revenue', 'summary', '--from', FROM, '--to', TO, '--by', 'month', '-o', 'csv']);
      expect(csv.stdout.split('\r\n')).toEqual([
        'month,transactions,amount,platform_fee,share,"crypto_amount usdt"',
        '2026-01,1,999999999.99,9999999.99,249951761.16,6.535948',
        '2026-02,1,500000000.00,5000000.00,124975880.58,6.535948',
        '2026-03,0,0,0,0,0',
        '2026-04,1,1000.00,10.00,2.50,6.535948',
        '',
      ]);
    } finally {
      await server.close();
    }
  });

  it('on a terminal: thousands grouped, a bar scaled to the largest month, 80 columns; --no-chart drops the bar', async () => {
    const server = await ledgerServer(big);
    try {
      const r = await cli(server, ['revenue', 'summary', '--from', FROM, '--to', TO, '--by', 'month'], 80);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
      const jan = lines.find((l) => l.startsWith('2026-01'))!;
      const feb = lines.find((l) => l.startsWith('2026-02'))!;
      expect(jan).toContain('249,951,761.16');
      expect(jan).toContain('999,999,999.99');
      const barOf = (l: string) => /[█▏▎▍▌▋▊▉]+$/.exec(l)?.[0] ?? '';
      // February's share is half January's: half the bar, to the eighth.
      expect(barOf(jan).length).toBeGreaterThanOrEqual(6);
      expect(barOf(feb)).toBe(`${'█'.repeat(Math.floor(barOf(jan).length / 2))}${barOf(jan).length % 2 ? '▌' : ''}`);
      expect(barOf(lines.find((l) => l.startsWith('2026-03'))!)).toBe('');
      expect(barOf(lines.find((l) => l.startsWith('2026-04'))!)).toBe('▏');
      expect(lines.at(-1)).toMatch(/^total +3 +1,500,000,999\.99 +15,000,009\.99 +374,927,644\.24$/);
      const plain = await cli(server, ['revenue', 'summary', '--from', FROM, '--to', TO, '--by', 'month', '--no-chart'], 80);
      expect(plain.stdout).not.toMatch(/[█▏▎▍▌▋▊▉]/);
      expect(plain.stdout).toContain('249,951,761.16');
      const json = await cli(server, ['revenue', 'summary', '--from', FROM, '--to', TO, '--by', 'month', '--json'], 80);
      expect(json.stdout).not.toMatch(/[█,]\d/);
      expect(JSON.parse(json.stdout).rows[0].share).toBe('249951761.16');
    } finally {
      await server.close();
    }
  });

  it('stderr a terminal: the progress is drawn, then cleared; with --json (a program reads stderr) none', async () => {
    const server = await ledgerServer(big);
    try {
      const terminal = { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl, CI: undefined }, stderrColumns: 80 };
      const table = await runMain(['revenue', 'summary', '--from', FROM, '--to', TO, '--by', 'month'], terminal);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stderr).toMatch(/reading the ledger/);
      expect(screenOf(table.stderr).trim()).toBe('');
      const json = await runMain(['revenue', 'summary', '--from', FROM, '--to', TO, '--by', 'month', '--json'], terminal);
      expect(json).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(json.stdout).total.transactions).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('a pseudo-terminal at 80 columns: progress on stderr, then the table within 80 columns', async () => {
    const server = await ledgerServer(big);
    try {
      const s = runInPty(['revenue', 'summary', '--from', FROM, '--to', TO, '--by', 'month', '--token', 'usdt'], { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl, OFFRAMP_CONFIG_DIR: freshDir('offramp-pty-cfg-') }, 30_000, 80);
      const r = await s.done;
      expect(r.code, r.output).toBe(0);
      expect(r.output).toMatch(/reading the ledger/);
      const table = r.screen.split('\n').filter((l) => /^(MONTH|20\d\d-\d\d|total)/.test(l));
      expect(table).toHaveLength(6);
      for (const line of table) expect([...line].length, line).toBeLessThanOrEqual(80);
      expect(table.find((l) => l.startsWith('2026-01'))).toMatch(/249,951,761\.16 +█+$/);
    } finally {
      await server.close();
    }
  });

  it('--by month,token in an 80-column terminal: no row wraps; the token amount gives way, the NGN figures never', async () => {
    const server = await ledgerServer(randomLedger(2, `${FROM}T00:00:00Z`, `${TO}T23:59:59Z`, 400));
    try {
      const args = ['revenue', 'summary', '--from', FROM, '--to', TO, '--by', 'month,token'];
      const r = await runInPty(args, { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl, OFFRAMP_CONFIG_DIR: freshDir('offramp-pty-cfg-') }, 30_000, 80).done;
      expect(r.code, r.output).toBe(0);
      const table = r.screen.split('\n').filter((l) => /^(MONTH|20\d\d-\d\d|total)/.test(l));
      expect(table).toHaveLength(10);
      for (const line of table) expect([...line].length, line).toBeLessThanOrEqual(80);
      expect(table[0]).toMatch(/^MONTH +TOKEN +TXNS +VOLUME \(NGN\) +FEE \(NGN\) +SHARE \(NGN\)$/);
      expect(table.at(-1)).toMatch(/^total +— +57 +8,152,328,633\.77 +30,147,832\.10 +40,050,347\.6336$/);
      // Wide enough, or piped, the token amounts are there.
      const wide = await cli(server, args, 120);
      expect(wide.stdout.split('\n')[0]).toContain(' CRYPTO');
    } finally {
      await server.close();
    }
  });
});
