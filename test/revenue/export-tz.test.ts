// `revenue export --tz ZONE`: plain --from/--to days are days of the zone, the --summary
// table's months, the manifest and the workbook's `by month` sheet are cut there, and a
// stopped export's checkpoint and hint carry the zone. A ledger with rows either side of
// a Lagos midnight (UTC+1) that is a month's end: the same days select other rows in
// Lagos than in UTC, and every sum stays exact.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exactSum } from '../helpers/decimal.js';
import { runMain } from '../helpers/main.js';
import { errorBody, json, scriptedServer } from '../helpers/server.js';
import { PYTHON, readWorkbooks } from '../helpers/spreadsheet.js';
import { freshDir, ledgerRow } from './export-helpers.js';
import { ledgerAnswer, ledgerServer } from './ledger-server.js';

const KEY = 'sk_test_export_tz_0001';
const ROWS = [
  ledgerRow(1, '2026-09-30T22:30:00.000Z', { share: '1.01' }), // 30 Sep in both
  ledgerRow(2, '2026-09-30T23:30:00.000Z', { share: '2.02' }), // UTC 30 Sep, Lagos 1 Oct
  ledgerRow(3, '2026-10-15T12:00:00.000Z', { share: '4.000000000000000001' }),
  ledgerRow(4, '2026-10-31T22:30:00.000Z', { share: '8.08' }), // 31 Oct in both
  ledgerRow(5, '2026-10-31T23:30:00.000Z', { share: '16.16' }), // UTC 31 Oct, Lagos 1 Nov
  ledgerRow(6, '2026-11-01T00:30:00.000Z', { share: '32.32' }), // 1 Nov in both
];
const ids = (ns: number[]) => ns.map((n) => ROWS[n - 1]!.transaction_id);

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function exportRun(args: string[]) {
  const server = await ledgerServer(ROWS, 200);
  close = () => server.close();
  return runMain(['revenue', 'export', ...args], { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl } });
}

const ndjsonIds = (stdout: string) => stdout.trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { transaction_id: string }).transaction_id);

describe('revenue export --tz', () => {
  it('October in Lagos is not October in UTC: the days select other rows', async () => {
    const lagos = await exportRun(['--from', '2026-10-01', '--to', '2026-10-31', '--tz', 'Africa/Lagos', '-o', 'ndjson']);
    expect(lagos.code, lagos.stderr).toBe(0);
    expect(ndjsonIds(lagos.stdout)).toEqual(ids([2, 3, 4]));
    const utc = await exportRun(['--from', '2026-10-01', '--to', '2026-10-31', '-o', 'ndjson']);
    expect(utc.code, utc.stderr).toBe(0);
    expect(ndjsonIds(utc.stdout)).toEqual(ids([3, 4, 5]));
  });

  it('--summary months and the manifest are those of the zone, the sums exact', async () => {
    const dir = freshDir('offramp-export-tz-');
    const months = async (tz: string[]) => {
      const r = await exportRun(['--from', '2026-09-30', '--to', '2026-11-01', ...tz, '--summary', '--out', join(dir, 'rows.json'), '--manifest', join(dir, 'm.json'), '--json']);
      expect(r.code, r.stderr).toBe(0);
      const table = JSON.parse(r.stderr.trim().split('\n').find((l) => l.startsWith('{"months"'))!) as { months: { month: string; rows: number; share: string }[] };
      return { months: table.months, manifest: JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8')) as { window: unknown; totals: { fiat: { share: string } } } };
    };
    const lagos = await months(['--tz', 'Africa/Lagos']);
    expect(lagos.months).toEqual([
      { month: '2026-09', rows: 1, share: '1.01', ok: true },
      { month: '2026-10', rows: 3, share: exactSum(['2.02', '4.000000000000000001', '8.08']), ok: true },
      { month: '2026-11', rows: 2, share: '48.48', ok: true },
    ]);
    // 30 Sep in Lagos starts at 29 Sep 23:00 UTC; 1 Nov ends at 1 Nov 22:59:59.999 UTC.
    expect(lagos.manifest.window).toEqual({ from: '2026-09-29T23:00:00.000Z', to: '2026-11-01T22:59:59.999Z', tz: 'Africa/Lagos' });
    expect(lagos.manifest.totals.fiat.share).toBe(exactSum(ROWS.map((r) => r.share)));
    const utc = await months([]);
    expect(utc.months.map((m) => [m.month, m.rows])).toEqual([['2026-09', 2], ['2026-10', 3], ['2026-11', 1]]);
    expect(utc.manifest.window).toEqual({ from: '2026-09-30T00:00:00.000Z', to: '2026-11-01T23:59:59.999Z', tz: 'UTC' });
  });

  it.skipIf(!PYTHON)('the workbook’s by-month sheet is by month of the zone', async () => {
    const dir = freshDir('offramp-export-tz-xlsx-');
    const out = join(dir, 'autumn.xlsx');
    const r = await exportRun(['--from', '2026-09-30', '--to', '2026-11-01', '--tz', 'Africa/Lagos', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const sheet = readWorkbooks(dir, [out])[out]!['by month']!;
    const rows = sheet.rows.map((row) => row.slice(0, 3).map((c) => c.value));
    expect(rows).toEqual([
      ['month (Africa/Lagos)', 'token', 'rows'],
      ['2026-09', 'usdt', 1],
      ['2026-10', 'usdt', 3],
      ['2026-11', 'usdt', 2],
      ['all months (NGN)', null, 6],
    ]);
  });

  it('a stopped export’s hint and checkpoint carry the zone; resuming in another zone is refused', async () => {
    const dir = freshDir('offramp-export-tz-resume-');
    const out = join(dir, 'october.csv');
    const answer = ledgerAnswer(ROWS);
    const server = await scriptedServer([json(503, errorBody('UNAVAILABLE', 'try later')), ...Array.from({ length: 100 }, () => answer)]);
    close = () => server.close();
    const env = { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl };
    const args = ['revenue', 'export', '--from', '2026-10-01', '--to', '2026-10-31', '--tz', 'Africa/Lagos', '--out', out];
    const stopped = await runMain([...args, '--retries', '0'], { env });
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain(`hint: continue it with: offramp revenue export --from 2026-09-30T23:00:00.000Z --to 2026-10-31T22:59:59.999Z --tz Africa/Lagos --out ${out} --resume\n`);
    expect(JSON.parse(readFileSync(join(dir, 'october.csv.offramp-resume', 'checkpoint.json'), 'utf8')).binding.tz).toBe('Africa/Lagos');
    // The same instants, months cut in another zone: another export.
    const other = await runMain(['revenue', 'export', '--from', '2026-09-30T23:00:00.000Z', '--to', '2026-10-31T22:59:59.999Z', '--out', out, '--resume'], { env });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('this one differs in --tz');
    const resumed = await runMain(['revenue', 'export', '--from', '2026-09-30T23:00:00.000Z', '--to', '2026-10-31T22:59:59.999Z', '--tz', 'Africa/Lagos', '--out', out, '--resume'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain(ROWS[1]!.transaction_id);
    expect(existsSync(join(dir, 'october.csv.offramp-resume'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['october.csv']);
  });

  it('an unknown zone is a usage error before any request', async () => {
    const r = await exportRun(['--from', '2026-10-01', '--to', '2026-10-31', '--tz', 'Mars/Olympus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--tz: "Mars/Olympus" is not a time zone this system knows');
  });
});
