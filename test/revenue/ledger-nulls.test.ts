// The spec types a ledger row's merchant_id and terminal_id as strings, and our emulator
// now writes "" when none was given (test/emulator/revenue.test.ts); a service that sends
// null instead is still read: the export writes an empty field, the summary sums the row.
// In process, against a scripted service.
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/main.js';
import { json, scriptedServer } from '../helpers/server.js';
import { ledgerRow } from './export-helpers.js';

const DAY = '2026-03-02';
const ROW = ledgerRow(1, `${DAY}T10:00:00.000Z`, { merchant_id: null, terminal_id: null });
const page = (extra: Record<string, unknown> = {}) => json(200, { success: true, data: { data: [ROW], has_more: false, limit: 100, next_cursor: null, ...extra } });

const servers: Awaited<ReturnType<typeof scriptedServer>>[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function run(answers: Parameters<typeof scriptedServer>[0], args: string[]) {
  const server = await scriptedServer(answers);
  servers.push(server);
  return runMain(args, { env: { OFFRAMP_API_KEY: 'sk_test_nulls_0001', OFFRAMP_BASE_URL: server.baseUrl } });
}

describe('ledger rows with null merchant_id and terminal_id', () => {
  it('export as empty CSV fields, and as null in JSON', async () => {
    const csv = await run([page()], ['revenue', 'export', '--from', DAY, '--to', DAY, '--concurrency', '1']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\r\n')[1]).toBe(`${ROW.transaction_id},,ref-1,,usdt,bep20,6.535948,10000.00,100.00,25.00,${DAY}T10:00:00.000Z`);
    const ndjson = await run([page()], ['revenue', 'export', '--from', DAY, '--to', DAY, '--concurrency', '1', '-o', 'ndjson']);
    expect(ndjson.code, ndjson.stderr).toBe(0);
    expect(JSON.parse(ndjson.stdout)).toMatchObject({ merchant_id: null, terminal_id: null });
  });

  it('count in a summary summed from the rows', async () => {
    const r = await run([page()], ['revenue', 'summary', '--from', DAY, '--to', DAY, '--token', 'usdt', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ total_partner_share: '25.00', transaction_count: 1 });
  });
});
