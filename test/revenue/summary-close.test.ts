// Month-close honesty for the summaries and the report (docs/finance.md, "Closing a month"):
// a window that reaches into today, as the --tz zone counts days, warns that its figures
// can still change; a filter that matched no row says so. Both on stderr, exit 0.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/main.js';
import { ledgerRow } from './export-helpers.js';
import { ledgerServer } from './ledger-server.js';

const KEY = 'sk_test_summary_close_01';
let server: Awaited<ReturnType<typeof ledgerServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const OPEN = 'its figures can still change; close a month once it is over';

async function summary(args: string[], now: string) {
  server = await ledgerServer([ledgerRow(1, '2026-03-01T10:00:00.000Z')]);
  return runMain(['revenue', ...args], { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl }, now: () => new Date(now) });
}

describe('revenue summary and report: month-close honesty', () => {
  it('counts today in --tz: 23:30 UTC on Feb 28 is already March 1 in Lagos', async () => {
    const utc = await summary(['summary', '--from', '2026-02-01', '--to', '2026-02-28', '--by', 'month'], '2026-02-28T23:30:00.000Z');
    expect(utc.code, utc.stderr).toBe(0);
    expect(utc.stderr).toBe(`warning: the window reaches into today (2026-02-28 UTC), which is not over: ${OPEN}\nnote: the ledger holds no row in 2026-02-01T00:00:00.000Z … 2026-02-28T23:59:59.999Z\n`);
    await server!.close();
    const lagos = await summary(['summary', '--from', '2026-02-01', '--to', '2026-02-28', '--by', 'month', '--tz', 'Africa/Lagos'], '2026-02-28T23:30:00.000Z');
    expect(lagos.code, lagos.stderr).toBe(0);
    expect(lagos.stderr).not.toContain('warning:');
  });

  it('a filter that matched no row says so; a closed window with rows says nothing', async () => {
    const none = await summary(['summary', '--from', '2026-03-01', '--to', '2026-03-31', '--token', 'usdc'], '2026-05-01T00:00:00.000Z');
    expect(none.code).toBe(0);
    expect(none.stderr).toBe('note: no row of 2026-03-01T00:00:00.000Z … 2026-03-31T23:59:59.999Z matched --token usdc\n');
    await server!.close();
    const some = await summary(['summary', '--from', '2026-03-01', '--to', '2026-03-31', '--by', 'month'], '2026-05-01T00:00:00.000Z');
    expect(some.code).toBe(0);
    expect(some.stderr).toBe('');
  });

  it('the report warns the same way, and still writes the page', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'offramp-close-')), 'report.html');
    const r = await summary(['report', '--from', '2026-03-01', '--to', '2026-03-31', '--out', out], '2026-03-15T12:00:00.000Z');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`warning: the window reaches into days not over yet (today is 2026-03-15 UTC): ${OPEN}`);
  });
});
