// The CSV that `tx list`, `webhooks list` and `revenue summary` write, opened as a user opens
// it: LibreOffice's own import (headless Calc), read back with openpyxl. Text from outside
// that starts like a formula comes in as text, never as a formula Calc runs; amounts come in
// as numbers. `--raw-cells` shows why the guard is there: Calc runs the same cell.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { json, scriptedServer } from '../helpers/server.js';
import { calcImport, PYTHON, readWorkbooks, SOFFICE, type XCell } from '../helpers/spreadsheet.js';
import { ledgerRow, freshDir } from '../revenue/export-helpers.js';
import { ledgerServer } from '../revenue/ledger-server.js';
import { partner } from '../tx/partner.js';

const FORMULA = '=1+1';
const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

if (!SOFFICE || !PYTHON) it.skip('LibreOffice import: needs soffice and python3 with openpyxl (apt-get install -y libreoffice-calc-nogui python3-openpyxl)', () => undefined);

describe.skipIf(!SOFFICE || !PYTHON)('CSV from the lists and the summary, through LibreOffice', () => {
  const dir = freshDir('offramp-csv-calc-');
  const files: Record<string, string> = {};

  beforeAll(async () => {
    const emu = await emulatorFor();
    servers.push(emu);
    const api = partner(emu.emulator.url, TEST_KEY);
    for (const [i, ref] of [FORMULA, '+2348012345678', 'plain-1'].entries()) {
      expect((await api.call('POST', '/transactions', { fiat_amount: '5000.50', crypto_currency: 'usdt', network: 'bep20', merchant_reference: ref }, `calc-${i}`)).status).toBeLessThan(300);
    }
    const event = { event_id: '5d0e7a2b-1c3d-4e5f-8a9b-0c1d2e3f4a7a', aggregate_id: '0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91', event_type: 'transaction.created', delivery_status: 'failed', attempts: 6, last_error: FORMULA, created_at: '2026-11-20T10:00:00.000Z', updated_at: '2026-11-20T10:05:00.000Z' };
    const hooks = await scriptedServer([json(200, { success: true, data: { data: [event], has_more: false, next_cursor: null, limit: 20 } })]);
    const ledger = await ledgerServer([ledgerRow(1, '2026-03-01T10:00:00.000Z', { merchant_id: FORMULA }), ledgerRow(2, '2026-03-02T10:00:00.000Z')]);
    servers.push(hooks, ledger);
    const runs: Record<string, [string[], Record<string, string>]> = {
      'tx.csv': [['tx', 'list', '--all', '-o', 'csv'], emu.env],
      'tx-raw.csv': [['tx', 'list', '--all', '-o', 'csv', '--raw-cells'], emu.env],
      'hooks.csv': [['webhooks', 'list', '-o', 'csv'], { OFFRAMP_API_KEY: 'sk_test_calc_0001', OFFRAMP_BASE_URL: hooks.baseUrl }],
      'summary.csv': [['revenue', 'summary', '--from', '2026-03-01', '--to', '2026-03-31', '--by', 'merchant', '-o', 'csv'], { OFFRAMP_API_KEY: 'sk_test_calc_0001', OFFRAMP_BASE_URL: ledger.baseUrl }],
    };
    for (const [name, [args, env]] of Object.entries(runs)) {
      const r = await runMain(args, { env });
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      writeFileSync(join(dir, name), r.stdout);
    }
    const names = Object.keys(runs);
    const books = readWorkbooks(dir, calcImport(dir, names.map((n) => join(dir, n))));
    for (const [i, book] of Object.values(books).entries()) files[names[i]!] = JSON.stringify(Object.values(book)[0]!.rows);
  }, 180_000);

  const rows = (name: string) => JSON.parse(files[name]!) as XCell[][];
  const column = (name: string, header: string) => {
    const [head, ...body] = rows(name);
    const at = head!.findIndex((c) => c.value === header);
    return body.map((row) => row[at]!);
  };

  it('a formula-like reference, last error or merchant id comes in as text; no cell is a formula', () => {
    for (const name of ['tx.csv', 'hooks.csv', 'summary.csv']) expect(rows(name).flat().filter((c) => c.type === 'f'), name).toEqual([]);
    expect(column('tx.csv', 'merchant_reference').map((c) => c.type)).toEqual(['s', 's', 's']);
    expect(column('hooks.csv', 'last_error')).toEqual([expect.objectContaining({ type: 's', value: `'${FORMULA}` })]);
    expect(column('summary.csv', 'merchant').map((c) => c.value)).toContain(`'${FORMULA}`);
  });

  it('amounts come in as numbers', () => {
    expect(column('tx.csv', 'amount').map((c) => [c.type, c.value])).toEqual([['n', '5000.5'], ['n', '5000.5'], ['n', '5000.5']]);
    expect(column('summary.csv', 'share').every((c) => c.type === 'n')).toBe(true);
  });

  it('with --raw-cells, Calc runs the reference as a formula: what the guard prevents', () => {
    expect(column('tx-raw.csv', 'merchant_reference').filter((c) => c.type === 'f').map((c) => c.value)).toEqual([FORMULA]);
  });
});
