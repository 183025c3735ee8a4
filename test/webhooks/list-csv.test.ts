// `webhooks list -o csv`: the telemetry as RFC 4180 CSV with the ledger export's spreadsheet
// guard (last_error is the service's free text), --raw-cells for the cells as received.
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/main.js';
import { json, scriptedServer } from '../helpers/server.js';

const event = (last_error: string | null, event_type = 'transaction.created') => ({
  event_id: '5d0e7a2b-1c3d-4e5f-8a9b-0c1d2e3f4a7a',
  aggregate_id: '0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91',
  event_type,
  delivery_status: 'failed',
  attempts: 6,
  last_error,
  created_at: '2026-11-20T10:00:00.000Z',
  updated_at: '2026-11-20T10:05:00.000Z',
});
const page = (...data: object[]) => json(200, { success: true, data: { data, has_more: false, next_cursor: null, limit: 20 } });

async function csv(args: string[], ...answers: ReturnType<typeof page>[]) {
  const server = await scriptedServer(answers);
  try {
    return await runMain(['webhooks', 'list', '-o', 'csv', ...args], { env: { OFFRAMP_API_KEY: 'sk_test_csv_0001', OFFRAMP_BASE_URL: server.baseUrl } });
  } finally {
    await server.close();
  }
}

describe('webhooks list -o csv', () => {
  const hostile = ['=HYPERLINK("http://evil.example","retry")', '-2+3', '@SUM(A1)', 'endpoint answered HTTP 500'];

  it("guards a cell a spreadsheet would run as a formula with a leading '", async () => {
    const r = await csv([], page(...hostile.map((e) => event(e))));
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split('\r\n');
    expect(rows[0]).toBe('event_id,aggregate_id,event_type,delivery_status,attempts,last_error,created_at,updated_at');
    expect(rows.slice(1, 5).map((row) => row.split(',').slice(5, -2).join(','))).toEqual([
      `"'=HYPERLINK(""http://evil.example"",""retry"")"`,
      "'-2+3",
      "'@SUM(A1)",
      '"endpoint answered HTTP 500"',
    ]);
    expect(rows[1]).toMatch(/^5d0e7a2b-1c3d-4e5f-8a9b-0c1d2e3f4a7a,0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91,transaction\.created,failed,6,/);
  });

  it('--raw-cells writes the cells as received; it goes with -o csv only', async () => {
    const r = await csv(['--raw-cells'], page(event(hostile[0]!), event(null)));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\r\n')[1]).toContain(`,"=HYPERLINK(""http://evil.example"",""retry"")",`);
    expect(r.stdout.split('\r\n')[2]).toContain(',6,,2026-11-20T10:00:00.000Z,');
    const wrong = await runMain(['webhooks', 'list', '--raw-cells', '-o', 'ndjson'], { env: { OFFRAMP_API_KEY: 'sk_test_csv_0001', OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner' } });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^error: USAGE: --raw-cells applies to -o csv only \(-o ndjson never alters a cell\)$/m);
  });
});
