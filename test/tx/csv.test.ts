// `tx list -o csv` against the emulator and the variant server: RFC 4180 with the snapshot's
// columns, read back splitting on comma, semicolon and TAB as a spreadsheet's import does;
// formula-like cells quoted with `'` as the ledger export quotes them, plain decimal amounts
// untouched, and `--raw-cells` writing every cell as received.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSACTION_CSV_COLUMNS } from '../../src/lib/tx/csv.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { startVariant } from '../helpers/variant-server.js';
import { readCsv } from '../revenue/export-helpers.js';
import { partner } from './partner.js';

const REFERENCES = ['=HYPERLINK("http://x";"y")', '+2348012345678', '-5', '@sum', 'a;b c', 'plain-1'];
const targets: { name: string; env: Record<string, string>; close(): Promise<void> }[] = [];

beforeAll(async () => {
  const emu = await emulatorFor();
  targets.push({ name: 'emulator', env: emu.env, close: () => emu.close() });
  const variant = await startVariant();
  targets.push({ name: 'variant', env: { OFFRAMP_API_KEY: variant.apiKey, OFFRAMP_BASE_URL: variant.baseUrl }, close: () => variant.close() });
  for (const [api, fiat] of [[partner(emu.emulator.url, TEST_KEY), '5000.5'], [partner(variant.baseUrl, variant.apiKey), '98765.43']] as const) {
    for (const ref of REFERENCES) {
      const r = await api.call('POST', '/transactions', { fiat_amount: fiat, crypto_currency: 'usdt', network: 'bep20', merchant_reference: ref }, `csv-${REFERENCES.indexOf(ref)}`);
      expect(r.status, JSON.stringify(r.error)).toBeLessThan(300);
    }
  }
}, 30_000);
afterAll(async () => {
  for (const t of targets) await t.close();
});

describe.each(['emulator', 'variant'])('tx list -o csv against %s', (name) => {
  it.each([
    ['spreadsheet-safe cells', [] as string[]],
    ['--raw-cells', ['--raw-cells']],
  ])('%s: one record per transaction, every record the same columns, amounts as sent', async (_kind, flags) => {
    const t = targets.find((x) => x.name === name)!;
    const json = await runMain(['tx', 'list', '--all', '--json'], { env: t.env });
    const listed = (JSON.parse(json.stdout) as { data: Record<string, unknown>[] }).data;
    const r = await runMain(['tx', 'list', '--all', '-o', 'csv', ...flags], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    const records = readCsv(r.stdout, [',', ';', '\t']);
    expect(records[0]).toEqual([...TRANSACTION_CSV_COLUMNS]);
    expect(records.map((rec) => rec.length)).toEqual(records.map(() => TRANSACTION_CSV_COLUMNS.length));
    const rows = records.slice(1).map((rec) => Object.fromEntries(TRANSACTION_CSV_COLUMNS.map((c, i) => [c, rec[i]])));
    expect(rows).toHaveLength(REFERENCES.length);
    const raw = flags.includes('--raw-cells');
    rows.forEach((row, i) => {
      const tx = listed[i]!;
      expect(row.id).toBe(tx.id);
      // Amounts are the service's decimal strings, whatever the guard.
      for (const c of ['amount', 'crypto_amount', 'rate']) expect(row[c]).toBe(tx[c]);
      const ref = tx.merchant_reference as string;
      expect(row.merchant_reference).toBe(raw || !/^[=+\-@]/.test(ref) ? ref : `'${ref}`);
      expect(row.created_at).toBe(tx.created_at);
    });
  });
});
