// Issue 17, "spreadsheet-safe" and "finance-grade": hostile cells (free text starting with
// =, +, -, @, TAB or CR, and their full-width forms) in CSV get a leading ' by default and
// stay verbatim with --raw-cells, in JSON and NDJSON, and as text cells in XLSX (read back
// with a real reader, openpyxl); XLSX amounts are exact (decimal.js) and times UTC
// date-times; --excel adds a byte order mark; the manifest's hash and totals match the
// file. `main` in process, against a scripted service and against the emulator.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { emulatorFor } from '../helpers/emulator.js';
import { json, scriptedServer, type Answer } from '../helpers/server.js';
import { freshDir, ledgerRow, readCsv } from './export-helpers.js';

const DAY = '2026-03-01';
const HOSTILE = [
  '=HYPERLINK("http://x","click")',
  '+1+1',
  '-2+3+cmd|\' /C calc\'!A0',
  '@SUM(1+1)',
  '\t=1+1',
  '\r=1+1',
  '\uFF1D1+1',
  '-5',
];

const row = (n: number, extra: Record<string, unknown>) => ledgerRow(n, `${DAY}T${String(n % 24).padStart(2, '0')}:00:00.123Z`, extra);

const ROWS = [
  ...HOSTILE.map((text, i) => row(i + 1, { merchant_reference: text, merchant_id: text, terminal_id: text })),
  // A refund-like negative share stays a number; an amount of 19 significant digits stays exact.
  row(20, { share: '-3.83', platform_fee: '0.10' }),
  row(21, { amount: '12345678901234567.89', crypto_currency: 'usdc', crypto_amount: '0.000000000000000001' }),
  row(22, { merchant_id: null, terminal_id: null }),
  // XML cannot carry most control characters: XLSX drops them, CSV and NDJSON keep them.
  row(23, { merchant_reference: 'a\u0001b' }),
];
const at = (n: number) => ROWS.findIndex((r) => r.transaction_id.endsWith(String(n).padStart(12, '0')));

const SUMMARY = {
  from: `${DAY}T00:00:00.000Z`,
  to: `${DAY}T23:59:59.999Z`,
  transaction_count: ROWS.length,
  total_partner_share: ROWS.reduce((sum, r) => sum.plus(r.share), new Decimal(0)).toFixed(2),
};

let server: Awaited<ReturnType<typeof scriptedServer>>;
let env: Record<string, string>;
beforeAll(async () => {
  const answer: Answer = (req, res) => {
    const summary = req.url.includes('include_summary=true') ? { summary: SUMMARY } : {};
    return json(200, { success: true, data: { data: ROWS, has_more: false, limit: 100, next_cursor: null, ...summary } })(req, res);
  };
  server = await scriptedServer(Array.from({ length: 200 }, () => answer));
  env = { ...tempHome().env, OFFRAMP_API_KEY: 'sk_test_cells_0001', OFFRAMP_BASE_URL: server.baseUrl };
});
afterAll(() => server.close());

const exportArgs = (...more: string[]) => ['revenue', 'export', '--from', DAY, '--to', DAY, ...more];

const COLUMNS = ['transaction_id', 'merchant_id', 'merchant_reference', 'terminal_id', 'crypto_currency', 'network', 'crypto_amount', 'amount', 'platform_fee', 'share', 'ts'] as const;

describe('revenue export: cells a spreadsheet would run', { timeout: 30_000 }, () => {
  it("CSV (default): a ' before every hostile cell, plain decimals left alone", async () => {
    const r = await runMain(exportArgs(), { env });
    expect(r.code, r.stderr).toBe(0);
    const [header, ...records] = readCsv(r.stdout);
    expect(header).toEqual([...COLUMNS]);
    for (const [i, text] of HOSTILE.entries()) {
      const rec = records[i]!;
      for (const col of [1, 2, 3]) expect(rec[col]).toBe(`'${text}`);
    }
    // Untouched: the negative share, the long amount, everything not starting like a formula.
    expect(records[at(20)]![9]).toBe('-3.83');
    expect(records[at(21)]![7]).toBe('12345678901234567.89');
    expect(records[at(22)]!.slice(0, 4)).toEqual([ROWS[at(22)]!.transaction_id, '', 'ref-22', '']);
    expect(records[at(23)]![2]).toBe('a\u0001b');
  });

  it('--raw-cells: every cell as received; JSON and NDJSON are never altered', async () => {
    const raw = await runMain(exportArgs('--raw-cells'), { env });
    expect(raw.code, raw.stderr).toBe(0);
    const records = readCsv(raw.stdout).slice(1);
    expect(records.map((rec) => rec[2])).toEqual(ROWS.map((r) => r.merchant_reference));
    const nd = await runMain(exportArgs('-o', 'ndjson'), { env });
    expect(nd.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual(ROWS);
    const js = await runMain(exportArgs('--json'), { env });
    expect(JSON.parse(js.stdout)).toEqual(ROWS);
    const refused = await runMain(exportArgs('-o', 'ndjson', '--raw-cells'), { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('error: USAGE: --raw-cells applies to CSV only');
  });

  it('--excel: a UTF-8 byte order mark, then CRLF records', async () => {
    const dir = freshDir('offramp-cells-');
    const out = join(dir, 'excel.csv');
    const r = await runMain(exportArgs('--excel', '--out', out), { env });
    expect(r.code, r.stderr).toBe(0);
    const bytes = readFileSync(out);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8').slice(1);
    expect(text.startsWith('transaction_id,merchant_id,')).toBe(true);
    expect(text.split('\r\n')).toHaveLength(ROWS.length + 2);
  });

  it('the manifest: the SHA-256 and length of the file, totals per token from its rows, the summary checked', async () => {
    const dir = freshDir('offramp-cells-');
    const out = join(dir, 'march.csv');
    const manifestPath = join(dir, 'march.json');
    const r = await runMain(exportArgs('--out', out, '--manifest', manifestPath, '--summary'), { env });
    expect(r.code, r.stderr).toBe(0);
    const file = readFileSync(out);
    const m = JSON.parse(readFileSync(manifestPath, 'utf8'));
    expect(m.output).toEqual({ file: out, bytes: file.length, sha256: createHash('sha256').update(file).digest('hex') });
    expect(m).toMatchObject({
      kind: 'offramp.revenue-export.manifest',
      cli: { name: 'offramp-cli' },
      api: { version: 'v1', base_url: server.baseUrl },
      window: { from: `${DAY}T00:00:00.000Z`, to: `${DAY}T23:59:59.999Z` },
      filters: { token: null, network: null },
      format: 'csv',
      rows: ROWS.length,
      service_summary: { ok: true, total: { service_rows: ROWS.length, service_share: SUMMARY.total_partner_share } },
    });
    expect(Date.parse(m.generated_at)).not.toBeNaN();
    // Totals recomputed from the file itself, with decimal.js.
    const records = readCsv(file.toString('utf8')).slice(1);
    const sums = new Map<string, { rows: number; crypto: Decimal; amount: Decimal; fee: Decimal; share: Decimal }>();
    for (const rec of records) {
      const s = sums.get(rec[4]!) ?? { rows: 0, crypto: new Decimal(0), amount: new Decimal(0), fee: new Decimal(0), share: new Decimal(0) };
      sums.set(rec[4]!, { rows: s.rows + 1, crypto: s.crypto.plus(rec[6]!), amount: s.amount.plus(rec[7]!), fee: s.fee.plus(rec[8]!), share: s.share.plus(rec[9]!) });
    }
    expect(Object.keys(m.totals.tokens)).toEqual([...sums.keys()].sort());
    for (const [token, s] of sums) {
      const t = m.totals.tokens[token];
      expect(t.rows).toBe(s.rows);
      for (const [key, value] of [['crypto_amount', s.crypto], ['amount', s.amount], ['platform_fee', s.fee], ['share', s.share]] as const) {
        expect(new Decimal(t[key]).equals(value), `${token} ${key}`).toBe(true);
      }
    }
    const all = [...sums.values()].reduce((a, s) => a.plus(s.amount), new Decimal(0));
    expect(m.totals.fiat.currency).toBe('NGN');
    expect(m.totals.fiat.amount).toBe(all.toFixed(2));
  });

  it('the manifest of an export to stdout hashes what stdout received', async () => {
    const dir = freshDir('offramp-cells-');
    const manifestPath = join(dir, 'stdout.json');
    const r = await runMain(exportArgs('--manifest', manifestPath), { env });
    expect(r.code, r.stderr).toBe(0);
    const m = JSON.parse(readFileSync(manifestPath, 'utf8'));
    expect(m.output).toEqual({ file: null, bytes: Buffer.byteLength(r.stdout), sha256: createHash('sha256').update(r.stdout).digest('hex') });
  });
});

/** A python3 that has openpyxl, or undefined (the XLSX tests then say why they skip). */
function openpyxlPython(): string | undefined {
  for (const python of ['python3', '/usr/bin/python3']) {
    if (spawnSync(python, ['-c', 'import openpyxl'], { stdio: 'ignore' }).status === 0) return python;
  }
  return undefined;
}
const PYTHON = openpyxlPython();
const READER = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
ws = wb['revenue']
rows = []
for row in ws.iter_rows():
    rows.append([{'type': c.data_type, 'format': c.number_format, 'value': c.value.isoformat() if hasattr(c.value, 'isoformat') else (repr(c.value) if isinstance(c.value, float) else c.value)} for c in row])
print(json.dumps({'sheets': wb.sheetnames, 'rows': rows}))
`;

type XCell = { type: string; format: string; value: string | number | null };

// Says why in the run's report when the reader is missing (CI installs python3-openpyxl).
if (!PYTHON) it.skip('XLSX read-back: no python3 with openpyxl here (apt-get install -y python3-openpyxl)', () => undefined);

describe.skipIf(!PYTHON)('revenue export -o xlsx, read back with openpyxl', { timeout: 30_000 }, () => {
  let cells: XCell[][];
  let file: Buffer;
  let manifest: { output: { sha256: string; bytes: number }; format: string };
  beforeAll(async () => {
    const dir = freshDir('offramp-xlsx-');
    const out = join(dir, 'march.xlsx');
    const r = await runMain(exportArgs('-o', 'xlsx', '--out', out, '--manifest', join(dir, 'm.json')), { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/Warning/);
    file = readFileSync(out);
    manifest = JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8'));
    const reader = join(dir, 'read.py');
    writeFileSync(reader, READER);
    const parsed = JSON.parse(execFileSync(PYTHON!, [reader, out], { encoding: 'utf8' })) as { sheets: string[]; rows: XCell[][] };
    expect(parsed.sheets).toEqual(['revenue', 'totals', 'by month']);
    cells = parsed.rows;
  });

  it('a header row, then one row per ledger row', () => {
    expect(cells[0]!.map((c) => c.value)).toEqual([...COLUMNS]);
    expect(cells).toHaveLength(ROWS.length + 1);
  });

  it('references and ids are text cells, never formulas, whatever they start with', () => {
    for (const [i, r] of ROWS.entries()) {
      for (const [col, key] of [[0, 'transaction_id'], [1, 'merchant_id'], [2, 'merchant_reference'], [3, 'terminal_id']] as const) {
        const cell = cells[i + 1]![col]!;
        const want = r[key];
        if (want === null) {
          expect(cell.value).toBeNull();
          continue;
        }
        expect(cell.type).toBe('s');
        // XML reads a CR as a line end (LF) and cannot hold other control characters; everything else comes back as written.
        // eslint-disable-next-line no-control-regex
        expect(cell.value).toBe(String(want).replace(/\r/g, '\n').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ''));
      }
    }
    expect(cells.flat().some((c) => c.type === 'f')).toBe(false);
  });

  it('times are UTC date-times to the millisecond', () => {
    for (const [i, r] of ROWS.entries()) {
      const cell = cells[i + 1]![10]!;
      expect(cell.type).toBe('d');
      expect(cell.format).toBe('yyyy-mm-dd hh:mm:ss.000');
      expect(Math.abs(Date.parse(`${cell.value}Z`) - Date.parse(r.ts))).toBeLessThan(1);
    }
  });

  it('amounts are exact: numbers with the ledger scale, text beyond 15 significant digits', () => {
    for (const [i, r] of ROWS.entries()) {
      for (const [col, key] of [[6, 'crypto_amount'], [7, 'amount'], [8, 'platform_fee'], [9, 'share']] as const) {
        const cell = cells[i + 1]![col]!;
        const want = new Decimal(r[key]);
        if (want.sd() > 15) {
          expect(cell, `${key} of row ${i + 1}`).toMatchObject({ type: 's', value: r[key] });
        } else {
          expect(cell.type).toBe('n');
          expect(new Decimal(String(cell.value)).equals(want), `${key} ${cell.value} vs ${r[key]}`).toBe(true);
          const scale = r[key].includes('.') ? r[key].split('.')[1]!.length : 0;
          expect(cell.format).toBe(scale ? `0.${'0'.repeat(scale)}` : '0');
        }
      }
    }
    expect(cells[at(21) + 1]![7]).toMatchObject({ type: 's', value: '12345678901234567.89' });
    expect(cells[at(20) + 1]![9]).toMatchObject({ type: 'n', value: '-3.83' });
  });

  it("the manifest's hash is the file's", () => {
    expect(manifest.format).toBe('xlsx');
    expect(manifest.output.sha256).toBe(createHash('sha256').update(file).digest('hex'));
    expect(manifest.output.bytes).toBe(file.length);
  });
});

describe('the issue’s reproduction against the emulator', { timeout: 30_000 }, () => {
  let emu: Awaited<ReturnType<typeof emulatorFor>>;
  beforeAll(async () => {
    emu = await emulatorFor();
  });
  afterAll(() => emu.close());

  it('tx create with a hostile reference, merchant and terminal, walked to completed, exports safe', async () => {
    const created = await runMain(['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', '=HYPERLINK("http://x","click")', '--merchant-id', '@SUM(1+1)', '--terminal-id', '+1+1', '--json'], { env: emu.env });
    expect(created.code, created.stderr).toBe(0);
    const id = JSON.parse(created.stdout).id as string;
    const walked = await runMain(['simulate', 'walk', id, '--outcome', 'completed'], { env: emu.env });
    expect(walked.code, walked.stderr).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    const r = await runMain(['revenue', 'export', '--from', today, '--to', today], { env: emu.env });
    expect(r.code, r.stderr).toBe(0);
    const rec = readCsv(r.stdout).find((x) => x[0] === id)!;
    expect(rec.slice(1, 4)).toEqual(["'@SUM(1+1)", `'=HYPERLINK("http://x","click")`, "'+1+1"]);
  });
});
