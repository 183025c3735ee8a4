// `revenue export` / `revenue summary` when things go wrong, against a scripted server:
// bad input sends nothing; a summary that disagrees exits 8 naming the slice; a failure
// mid-export leaves no file; the service's 400 is exit 2.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/main.js';
import { errorBody, json, scriptedServer, type Answer } from '../helpers/server.js';

const KEY = 'sk_test_export_errors_9f3a';
let server: Awaited<ReturnType<typeof scriptedServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(args: string[], answers: Answer[] = []) {
  server = await scriptedServer(answers);
  const r = await runMain(args, { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl, OFFRAMP_RETRIES: undefined } });
  expect(r.stdout + r.stderr).not.toContain(KEY);
  return { ...r, requests: server.requests };
}

const row = (n: number, ts: string, share = '10.00') => ({
  transaction_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  merchant_id: null,
  merchant_reference: `ref-${n}`,
  terminal_id: null,
  crypto_currency: 'usdt',
  network: 'bep20',
  crypto_amount: '6.535948',
  amount: '10000.00',
  platform_fee: '100.00',
  share,
  ts,
});
const page = (data: unknown[], next: string | null, summary?: unknown) =>
  json(200, { success: true, data: { data, has_more: next !== null, limit: 100, next_cursor: next, ...(summary ? { summary } : {}) } });

describe('revenue export: input checked before any request', () => {
  it.each([
    [['--from', '2026-02-30', '--to', '2026-03-01'], /--from: "2026-02-30" is not a real calendar day/],
    [['--from', '2026-03-02', '--to', '2026-03-01'], /--to \(2026-03-01T23:59:59.999Z\) is before --from/],
    [['--from', 'yesterday', '--to', '2026-03-01'], /--from: "yesterday" is not a date/],
    [['--to', '2026-03-01'], /missing required flag: --from/],
    [[], /missing required flags: --from, --to/],
    [['--from', '2026-03-01', '--to', '2026-03-01', '--concurrency', '0'], /--concurrency must be a whole number, 1 to 16/],
    [['--from', '2026-03-01', '--to', '2026-03-01', '-o', 'table'], /-o table is not supported by this command/],
    [['--from', '2026-03-01', '--to', '2026-03-01', '--token', 'us dt'], /--token "us dt" is not a token or network name/],
    [['--from', '2026-03-01', '--to', '2026-03-01', '--out', '/nonexistent-dir/x.csv'], /--out \/nonexistent-dir\/x.csv: cannot write there \(ENOENT\)/],
    [['--from', '2026-03-01', '--to', '2026-03-01', '-o', 'ndjson', '--excel'], /--excel applies to CSV only \(-o ndjson\)/],
    [['--from', '2026-03-01', '--to', '2026-03-01', '-o', 'xlsx', '--raw-cells', '--out', 'x.xlsx'], /--raw-cells applies to CSV only/],
    [['--from', '2026-03-01', '--to', '2026-03-01', '--resume'], /--resume needs --out FILE/],
    [['--from', '2026-03-01', '--to', '2026-03-01', '--out', 'a.csv', '--manifest', './a.csv'], /--manifest: give a file other than --out/],
    [['--from', '2026-03-01', '--to', '2026-03-01', '--manifest', ' '], /--manifest: give a file name/],
  ])('export %j → exit 2', async (args, message) => {
    const r = await run(['revenue', 'export', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')[0]).toMatch(/^error: USAGE: /);
    expect(r.requests).toHaveLength(0);
  });

  it('-o xlsx to a terminal is refused: binary data needs --out (or a redirect)', async () => {
    server = await scriptedServer([]);
    const r = await runMain(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01', '-o', 'xlsx'], {
      env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl },
      columns: 100,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: USAGE: -o xlsx writes a binary file: give --out FILE');
    expect(server.requests).toHaveLength(0);
  });

  it('summary and reconcile share the window rules', async () => {
    for (const cmd of [['revenue', 'summary'], ['reconcile']]) {
      const r = await run([...cmd, '--from', '2026-03-02', '--to', '2026-03-01']);
      expect(r.code).toBe(2);
      expect(r.requests).toHaveLength(0);
    }
  });
});

describe('revenue export: failures', () => {
  it('a slice whose rows disagree with the summary exits 8 naming it, and --out is not written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-mismatch-'));
    const out = join(dir, 'march.csv');
    const summary = { from: '2026-03-01T00:00:00.000Z', to: '2026-03-01T23:59:59.999Z', total_partner_share: '30.00', transaction_count: 3 };
    const r = await run(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01', '--summary', '--out', out, '--concurrency', '1'], [
      page([row(1, '2026-03-01T10:00:00.000Z')], 'c2', summary),
      page([row(2, '2026-03-01T20:00:00.000Z', '10.01')], null),
    ]);
    expect(r.code).toBe(8);
    expect(r.requests[0]!.url).toContain('include_summary=true');
    expect(r.requests[0]!.url).toContain('limit=100');
    expect(r.requests[1]!.url).toContain('cursor=c2');
    expect(r.requests[1]!.url).not.toContain('include_summary');
    expect(r.stderr).toContain(
      'error: CHECK_FAILED: a slice does not match the service\'s summary: slice 1 (2026-03-01T00:00:00.000Z … 2026-03-01T23:59:59.999Z): 2 rows exported, the service counts 3; share sums to 20.01, the service says 30.00',
    );
    expect(r.stderr).toMatch(/^2026-03 +2 +20.01 +MISMATCH$/m);
    expect(r.stderr).toMatch(/^total +2 +20.01 +MISMATCH: 3 rows, 30.00$/m);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a 5xx that outlasts the retries mid-export: exit 1, no file, no temporary file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-5xx-'));
    const out = join(dir, 'march.csv');
    const fail = json(503, errorBody('UNAVAILABLE', 'try later'));
    const r = await run(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01', '--out', out, '--retries', '1'], [
      page([row(1, '2026-03-01T10:00:00.000Z')], 'c2'),
      fail,
      fail,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: UNAVAILABLE: try later; ${out} was not written`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("the service's 400 is exit 2; a row outside the window asked for is refused", async () => {
    const bad = await run(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01'], [json(400, errorBody('BAD_REQUEST', 'the time window cannot exceed 90 days'))]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('error: BAD_REQUEST: the time window cannot exceed 90 days');
    const stray = await run(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01'], [page([row(1, '2026-03-02T00:00:00.000Z')], null)]);
    expect(stray.code).toBe(1);
    expect(stray.stderr).toMatch(/ANSWER_MISMATCH: asked for ledger rows of 2026-03-01T00:00:00.000Z … 2026-03-01T23:59:59.999Z, and the service returned one stamped 2026-03-02T00:00:00.000Z/);
  });

  it("--summary: the service's summary of another window (a month for a day) is refused, as revenue summary refuses it", async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'offramp-window-')), 'day.csv');
    const month = { from: '2026-03-01T00:00:00.000Z', to: '2026-03-31T23:59:59.999Z', total_partner_share: '10.00', transaction_count: 1 };
    const r = await run(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01', '--summary', '--out', out], [page([row(1, '2026-03-01T10:00:00.000Z')], null, month)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: ANSWER_MISMATCH: asked for the revenue summary of 2026-03-01T00:00:00.000Z … 2026-03-01T23:59:59.999Z, and the service answered with the summary of 2026-03-01T00:00:00.000Z … 2026-03-31T23:59:59.999Z');
    expect(existsSync(out)).toBe(false);
  });

  it('a 429 the client gave up on is waited out (its Retry-After) and the page asked again', async () => {
    const limited = json(429, errorBody('RATE_LIMITED', 'slow down'), { 'retry-after': '0' });
    const r = await run(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01', '-o', 'ndjson', '--retries', '0'], [
      limited,
      limited,
      page([row(1, '2026-03-01T10:00:00.000Z')], null),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.requests).toHaveLength(3);
  });

  it('a service that keeps answering 429: exit 6 after the export has waited it out several times', async () => {
    const limited = json(429, errorBody('RATE_LIMITED', 'slow down'), { 'retry-after': '0' });
    const r = await run(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01', '--retries', '0'], Array.from({ length: 9 }, () => limited));
    expect(r.code).toBe(6);
    expect(r.stderr.split('\n')[0]).toBe('error: RATE_LIMITED: slow down');
    expect(r.requests).toHaveLength(9);
  });

  it('revenue summary without a summary in the answer fails clearly', async () => {
    const r = await run(['revenue', 'summary', '--from', '2026-03-01', '--to', '2026-03-01'], [page([], null)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the service sent no summary/);
    expect(r.requests[0]!.url).toContain('limit=1');
  });
});
