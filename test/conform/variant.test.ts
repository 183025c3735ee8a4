// `offramp conform` (main in process) against the variant server, which keeps the spec
// but chose differently from the emulator on every open point (test/helpers/variant-server.ts):
// conform names each difference, exits 8 until `--save` writes the settings it found into
// the profile, and exits 0 after. A production profile sends no POST but quotes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { listen, post, storedLines, type Report } from './helpers.js';
import { startVariant, VARIANT } from '../helpers/variant-server.js';

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

describe('offramp conform against the variant', { timeout: 60_000 }, () => {
  it('names every difference, exits 8; --save writes the settings and the next run exits 0', async () => {
    // Deliveries of the variant, received by a real listener: the store conform reads.
    const store = join(mkdtempSync(join(tmpdir(), 'offramp-conform-')), 'events.ndjson');
    const listener = listen(store, 'whsec_variant');
    const variant = await startVariant({ webhookUrl: await listener.url });
    closers.push(variant.close);
    const tx = await post(variant.baseUrl, variant.apiKey, '/transactions', { fiat_amount: '5000.00', crypto_currency: 'usdt', network: 'bep20', merchant_reference: 'conform-store' }, 'k-store');
    await post(variant.baseUrl, variant.apiKey, '/sandbox/simulate', { transaction_id: tx.id, event: 'deposit.detected' });
    const lines = await storedLines(store, 2);
    expect(JSON.parse(lines[0]!)).toMatchObject({ v: 2, scheme: 'timestamped-sha256' });
    // From here on the variant's deliveries fail (nobody listens): conform sees `errored`.
    expect(await listener.stop()).toBe(130);

    const home = tempHome();
    const env = { ...home.env, OFFRAMP_WEBHOOK_SECRET: variant.webhookSecret };
    const add = await runMain(['profile', 'add', 'var', '--env', 'staging', '--base-url', variant.baseUrl, '--api-key-stdin'], { env, stdin: `${variant.apiKey}\n` });
    expect(add.code, add.stderr).toBe(0);

    const first = await runMain(['conform', '--profile', 'var', '--store', store, '--json'], { env });
    expect(first.code).toBe(8);
    expect(JSON.parse(first.stderr)).toMatchObject({ error: { code: 'CHECK_FAILED' } });
    const report = JSON.parse(first.stdout) as Report;
    expect(report).toMatchObject({ target: variant.baseUrl, env: 'staging' });
    const by = new Map(report.findings.map((f) => [f.point, f]));
    const row = (point: string) => {
      const f = by.get(point);
      if (!f) throw new Error(`no finding for ${point}`);
      return f;
    };
    expect(row('status: create')).toMatchObject({ emulator: '201', observed: '200', verdict: 'handled' });
    expect(row('status: quote')).toMatchObject({ emulator: '201', observed: '200', verdict: 'handled' });
    for (const list of ['transactions', 'webhook events', 'revenue']) {
      expect(row(`list: ${list}`)).toMatchObject({ emulator: 'page object, cursor in data', observed: 'array, cursor beside data', verdict: 'handled' });
    }
    expect(row('page size: webhook events')).toMatchObject({ emulator: '20', observed: String(VARIANT.defaultPageSize.webhooks), verdict: 'handled' });
    for (const [list, names] of Object.entries(VARIANT.filterNames)) {
      for (const [filter, name] of Object.entries(names)) {
        expect(row(`filter: ${list} ${filter}`), `${list} ${filter}`).toMatchObject({ emulator: filter, observed: name, verdict: 'needs-setting' });
      }
    }
    expect(row('error: 401 (wrong key)')).toMatchObject({ emulator: '401 UNAUTHORIZED', observed: `401 ${VARIANT.unauthorizedCode}`, verdict: 'handled' });
    expect(row('error: 404 (unknown id)').verdict).toBe('same');
    expect(row('error: 409 (cancel completed)').verdict).toBe('same');
    expect(row('request-id header')).toMatchObject({ emulator: 'x-request-id', observed: VARIANT.requestIdHeader, verdict: 'handled' });
    const delivery = row('values: delivery_status');
    expect(delivery.verdict).toBe('needs-setting');
    expect(delivery.observed.split(', ')).toContain(VARIANT.deliveryStatus.failed);
    expect(delivery.action).toMatch(/--save stores errored/);
    expect(row('delivery_status: delivered')).toMatchObject({ emulator: 'delivered', observed: VARIANT.deliveryStatus.delivered, verdict: 'needs-setting' });
    expect(row('values: publish_status')).toMatchObject({ emulator: 'pending', observed: VARIANT.publishStatus, verdict: 'handled' });
    expect(row('signature scheme')).toMatchObject({ emulator: 'hmac-sha256-hex', observed: VARIANT.signatureScheme, verdict: 'needs-setting' });
    expect(report.findings.filter((f) => f.verdict === 'unsupported')).toEqual([]);

    // Without --json: one line on stderr saying what to do.
    const table = await runMain(['conform', '--profile', 'var', '--store', store], { env });
    expect(table.code).toBe(8);
    expect(table.stderr).toMatch(/^error: CHECK_FAILED: conform: of \d+ points, 13 need a profile setting\nhint: run `offramp conform --profile var --save`/);
    expect(table.stdout).toMatch(/^  filter: transactions status: --save stores state /m);

    const saved = await runMain(['conform', '--profile', 'var', '--store', store, '--save', '--json'], { env });
    expect(saved.code, saved.stderr).toBe(0);
    const savedReport = JSON.parse(saved.stdout) as Report;
    expect(savedReport.findings.filter((f) => f.verdict === 'saved')).toHaveLength(13);
    expect(savedReport.saved).toMatchObject({ profile: 'var' });

    const show = JSON.parse((await runMain(['profile', 'show', 'var', '--json'], { env })).stdout);
    expect(show.service).toEqual({
      filterNames: VARIANT.filterNames,
      failedStatus: VARIANT.deliveryStatus.failed,
      deliveredStatus: VARIANT.deliveryStatus.delivered,
      signatureScheme: VARIANT.signatureScheme,
    });
    const shown = await runMain(['profile', 'show', 'var'], { env });
    expect(shown.stdout).toMatch(/failed status +errored/);
    expect(shown.stdout).toMatch(/transactions filters +status → state/);

    // With the settings in the profile, nothing needs one any more.
    const again = await runMain(['conform', '--profile', 'var', '--store', store, '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    const after = JSON.parse(again.stdout) as Report;
    expect(after.findings.filter((f) => ['needs-setting', 'unsupported'].includes(f.verdict))).toEqual([]);
    expect(after.findings.find((f) => f.point === 'filter: webhooks transaction_id')).toMatchObject({ observed: 'aggregate_id', verdict: 'handled' });
  });

  it('a production profile sends no POST but quotes; another list shape is read', async () => {
    const variant = await startVariant({ shape: 'pagination', seedRevenue: 30, emulator: { mode: 'production' } });
    closers.push(variant.close);
    const home = tempHome();
    await runMain(['profile', 'add', 'live', '--env', 'production', '--base-url', variant.baseUrl, '--api-key-stdin'], { env: home.env, stdin: `${variant.apiKey}\n` });
    const r = await runMain(['conform', '--profile', 'live', '--json'], { env: home.env });
    const report = JSON.parse(r.stdout) as Report;
    const by = new Map(report.findings.map((f) => [f.point, f]));
    expect(by.get('list: revenue')).toMatchObject({ observed: 'array, cursor in pagination', verdict: 'handled' });
    expect(by.get('filter: revenue crypto_currency')).toMatchObject({ observed: 'token', verdict: 'needs-setting' });
    expect(by.get('status: create')).toMatchObject({ observed: 'production: read-only', verdict: 'skipped' });
    expect(r.code).toBe(8);
    const posts = variant.requests.filter((q) => q.method === 'POST').map((q) => q.path);
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.filter((p) => p !== '/api/v1/partner/quotes')).toEqual([]);
  });
});
