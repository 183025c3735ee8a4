// `revenue export` / `revenue summary` when things go wrong, against a scripted server:
// bad input sends nothing (a file named for another format included); a summary that
// disagrees exits 8 naming the slice; a failure mid-export leaves no file; the service's
// 400 is exit 2; a service that only answers 429 ends the export within --retries.
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { RETRY_AFTER_CAP_MS } from '../../src/lib/client/http.js';
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

describe('revenue export against a service that only ever answers 429 (Retry-After: an hour)', () => {
  // The client's loop is the only one: --retries N bounds a page's attempts at N + 1, each
  // wait the Retry-After capped (RETRY_AFTER_CAP_MS). A fake clock does the waiting.
  it.each([
    [undefined, 4],
    [0, 1],
    [2, 3],
  ])('--retries %s: exit 6 after %i attempts, saying how long it waited and the command that continues it', async (retries, attempts) => {
    const asked: string[] = [];
    const refusing = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' }).end(JSON.stringify(errorBody('RATE_LIMITED', 'slow down')));
    });
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    onTestFinished(() => new Promise<void>((r) => (refusing.closeAllConnections(), refusing.close(() => r()))));
    let clock = Date.parse('2026-04-01T00:00:00Z');
    const waits: number[] = [];
    const out = join(mkdtempSync(join(tmpdir(), 'offramp-429-')), 'march 1.csv');
    const r = await runMain(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01', '--out', out, ...(retries === undefined ? [] : ['--retries', String(retries)])], {
      env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/api/v1/partner`, OFFRAMP_RETRIES: undefined },
      now: () => new Date(clock),
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    });
    expect(r.code).toBe(6);
    expect(asked).toHaveLength(attempts);
    expect(waits).toEqual(Array.from({ length: attempts - 1 }, () => RETRY_AFTER_CAP_MS));
    const waited = ((attempts - 1) * RETRY_AFTER_CAP_MS) / 1000;
    const [error, hint] = r.stderr.trim().split('\n');
    expect(error).toBe(
      `error: RATE_LIMITED: slow down (a page was refused at ${attempts === 1 ? 'its only attempt' : `all ${attempts} attempts`}, over ${waited < 120 ? `${waited} s` : `${waited / 60} min 0 s`} of waiting: lower --concurrency for a tighter limit, or raise --retries); ${out} was not written`,
    );
    expect(hint).toBe(`hint: continue it with: offramp revenue export --from 2026-03-01T00:00:00.000Z --to 2026-03-01T23:59:59.999Z --out '${out}' --resume`);
    expect(existsSync(out)).toBe(false);
    expect(statSync(`${out}.offramp-resume/checkpoint.json`).mode & 0o777).toBe(0o600);
  });
});

describe('revenue export: month-close honesty', () => {
  const OPEN = 'its figures can still change; close a month once it is over';
  it.each([
    ['2026-03-01T00:00:00.000Z', 'warning: the window reaches into today (2026-03-01 UTC), which is not over: '],
    ['2026-03-01T23:59:59.999Z', 'warning: the window reaches into today (2026-03-01 UTC), which is not over: '],
    ['2026-02-28T23:59:59.999Z', 'warning: the window reaches into days not over yet (today is 2026-02-28 UTC): '],
    ['2026-03-02T00:00:00.000Z', undefined],
  ])('March 1st exported at %s: %s', async (now, warning) => {
    server = await scriptedServer([page([row(1, '2026-03-01T10:00:00.000Z')], null)]);
    const r = await runMain(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01', '-o', 'ndjson'], {
      env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl },
      now: () => new Date(now),
    });
    expect(r.code, r.stderr).toBe(0);
    if (warning) expect(r.stderr).toBe(`${warning}${OPEN}\n`);
    else expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('a filter that matched no row says so on stderr, exit 0; so does an empty window', async () => {
    const r = await run(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01', '--token', 'USDC', '--network', 'tron'], [page([], null)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('note: no row of 2026-03-01T00:00:00.000Z … 2026-03-01T23:59:59.999Z matched --token usdc --network tron\n');
    expect(r.requests[0]!.url).toContain('crypto_currency=usdc');
    await server!.close();
    const empty = await run(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01', '-o', 'ndjson'], [page([], null)]);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toBe('note: the ledger holds no row in 2026-03-01T00:00:00.000Z … 2026-03-01T23:59:59.999Z\n');
  });
});

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
    [['--from', '2026-03-01', '--to', '2026-03-01', '-o', 'csv', '--out', 'x.xlsx'], /-o csv contradicts --out x.xlsx, which names a .xlsx file/],
    [['--from', '2026-03-01', '--to', '2026-03-01', '-o', 'ndjson', '--out', 'x.CSV'], /-o ndjson contradicts --out x.CSV, which names a .csv file/],
    [['--from', '2026-03-01', '--to', '2026-03-01', '--out', 'x.txt'], /--out x.txt: this command cannot write .txt files/],
    [['--from', '2026-03-01', '--to', '2026-03-01', '--out', 'report.html'], /--out report.html: this command cannot write .html files/],
  ])('export %j → exit 2', async (args, message) => {
    const r = await run(['revenue', 'export', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')[0]).toMatch(/^error: USAGE: /);
    expect(r.requests).toHaveLength(0);
  });

  it('-o table is refused with a hint naming every format the export writes, xlsx too', async () => {
    const r = await run(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01', '-o', 'table']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('use one of: csv, json, ndjson, xlsx');
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

  it('a 5xx that outlasts the retries mid-export: exit 1, no file, no temporary file; the checkpoint stays, and the hint continues it', async () => {
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
    expect(r.stderr).toContain(`hint: continue it with: offramp revenue export --from 2026-03-01T00:00:00.000Z --to 2026-03-01T23:59:59.999Z --out ${out} --resume\n`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual(['march.csv.offramp-resume']);
    expect(readdirSync(join(dir, 'march.csv.offramp-resume'))).toEqual(['checkpoint.json']);

    // Another export to the same file, without --resume, says whose checkpoint it replaces.
    await server!.close();
    const other = await run(['revenue', 'export', '--from', '2026-03-02', '--to', '2026-03-02', '--out', out], [page([row(2, '2026-03-02T10:00:00.000Z')], null)]);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).toContain(`note: this run replaces the checkpoint of another export to ${out} (--from 2026-03-01T00:00:00.000Z --to 2026-03-01T23:59:59.999Z -o csv)`);
    expect(readdirSync(dir)).toEqual(['march.csv']);
  });

  it('stopped writing a file whose name has no extension (a dotfile), the hint keeps its -o', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-dotfile-'));
    const out = join(dir, '.rows');
    const fail = json(503, errorBody('UNAVAILABLE', 'try later'));
    const r = await run(['revenue', 'export', '--from', '2026-03-01', '--to', '2026-03-01', '--out', out, '-o', 'ndjson', '--retries', '1'], [fail, fail]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`hint: continue it with: offramp revenue export --from 2026-03-01T00:00:00.000Z --to 2026-03-01T23:59:59.999Z -o ndjson --out ${out} --resume\n`);
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

  it('revenue summary without a summary in the answer fails clearly', async () => {
    const r = await run(['revenue', 'summary', '--from', '2026-03-01', '--to', '2026-03-01'], [page([], null)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the service sent no summary/);
    expect(r.requests[0]!.url).toContain('limit=1');
  });
});
