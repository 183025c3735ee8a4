// `offramp conform` (main in process) against the emulator: every point is `same` and it
// exits 0, which keeps the emulator's choices conform compares with (src/lib/openapi/
// open-points.ts) true; with a production profile only the quote and reads are sent;
// `--save` without a profile is refused before any request.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { listen, post, storedLines, type Report } from './helpers.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';

const SECRET = 'whsec_conform_e2e_7c2a';

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

describe('offramp conform against the emulator', { timeout: 20_000 }, () => {
  it('reports every point the same and exits 0, signature included (--store of a real listener)', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'offramp-conform-')), 'events.ndjson');
    const listener = listen(store, SECRET);
    const url = await listener.url;
    const emu = await emulatorFor({ webhookUrl: url, webhookSecret: SECRET });
    closers.push(emu.close);
    // Deliveries of the target's own, for the store: one transaction, detected.
    const tx = await post(emu.emulator.url, TEST_KEY, '/transactions', { fiat_amount: '5000.00', crypto_currency: 'usdt', network: 'bep20', merchant_reference: 'conform-e2e-store' }, 'k-store');
    await post(emu.emulator.url, TEST_KEY, '/sandbox/simulate', { transaction_id: tx.id, event: 'deposit.detected' });
    await storedLines(store, 2);
    expect(await listener.stop()).toBe(130);

    const r = await runMain(['conform', '--store', store, '--json'], { env: { ...emu.env, OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report).toMatchObject({ target: emu.emulator.url, env: 'unknown' });
    expect(report.findings.length).toBeGreaterThanOrEqual(38);
    expect(report.findings.filter((f) => f.verdict !== 'same')).toEqual([]);
    const by = new Map(report.findings.map((f) => [f.point, f]));
    expect(by.get('status: create')).toEqual({ point: 'status: create', emulator: '201', observed: '201', verdict: 'same' });
    expect(by.get('list: transactions')?.observed).toBe('page object, cursor in data');
    expect(by.get('filter: webhooks transaction_id')?.observed).toBe('transaction_id');
    expect(by.get('signature scheme')).toMatchObject({ emulator: 'hmac-sha256-hex', observed: 'hmac-sha256-hex' });

    // The table: the same points, inside 80 columns, and the tally.
    const table = await runMain(['conform'], { env: emu.env });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^POINT +EMULATOR +OBSERVED +VERDICT$/m);
    expect(Math.max(...table.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
    expect(table.stdout).toMatch(/\n39 points: 38 same, 1 skipped\n/);
  });

  it('a production profile is read-only: no POST but /quotes, and the rest is skipped', async () => {
    const log: string[] = [];
    const emu = await emulatorFor({ mode: 'production', seedRevenue: 30, log: (line) => log.push(line) });
    closers.push(emu.close);
    const home = tempHome();
    const add = await runMain(['profile', 'add', 'live', '--env', 'production', '--base-url', emu.emulator.url, '--api-key-stdin'], { env: home.env, stdin: `${TEST_KEY}\n` });
    expect(add.code).toBe(0);
    const r = await runMain(['conform', '--profile', 'live', '--json'], { env: home.env });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.env).toBe('production');
    const by = new Map(report.findings.map((f) => [f.point, f]));
    for (const point of ['status: create', 'status: cancel', 'status: simulate', 'status: webhook replay', 'error: 409 (cancel completed)']) {
      expect(by.get(point), point).toMatchObject({ observed: 'production: read-only', verdict: 'skipped' });
    }
    // Reads of the seeded ledger did run, filters included.
    expect(by.get('filter: revenue network')).toMatchObject({ observed: 'network', verdict: 'same' });
    const posts = log.filter((line) => line.startsWith('POST '));
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.filter((line) => !line.startsWith('POST /api/v1/partner/quotes '))).toEqual([]);
  });

  it('a target that cannot be reached exits 7', async () => {
    const r = await runMain(['conform', '--base-url', 'http://127.0.0.1:9/api/v1/partner'], { env: { OFFRAMP_API_KEY: TEST_KEY } });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^error: NETWORK: POST http:\/\/127\.0\.0\.1:9\/api\/v1\/partner\/quotes: connection refused/);
  });

  it('--save without a profile is a usage error, before any request', async () => {
    const log: string[] = [];
    const emu = await emulatorFor({ log: (line) => log.push(line) });
    closers.push(emu.close);
    const r = await runMain(['conform', '--save'], { env: emu.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: USAGE: --save writes into a profile/m);
    expect(log).toEqual([]);
  });
});
