// `offramp webhooks listen` receiving the variant server's deliveries, which are signed
// `t=<unix>,v1=<hex>` (not the emulator's hex HMAC of the body): every delivery of a walk
// is accepted by default and stored with the scheme that matched; pinned to the emulator's
// scheme, every one is refused and the service sees the failure in its telemetry.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killListeners, listenInProcess } from '../helpers/listener.js';
import { startVariant, VARIANT, type RunningVariant } from '../helpers/variant-server.js';

const opened: RunningVariant[] = [];
afterEach(async () => {
  killListeners();
  for (const v of opened.splice(0)) await v.close();
});

async function walk(v: RunningVariant): Promise<string> {
  const call = async (path: string, body: unknown, idem?: string) => {
    const res = await fetch(v.baseUrl + path, {
      method: 'POST',
      headers: { 'x-api-key': v.apiKey, 'content-type': 'application/json', ...(idem ? { 'idempotency-key': idem } : {}) },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { id: string } }).data;
  };
  const tx = await call('/transactions', { fiat_amount: '5000.00', crypto_currency: 'usdt', network: 'bep20', merchant_reference: 'listen-variant' }, 'listen-variant');
  for (const event of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) await call('/sandbox/simulate', { transaction_id: tx.id, event });
  return tx.id;
}

async function statuses(v: RunningVariant): Promise<string[]> {
  const res = await fetch(`${v.baseUrl}/webhooks/events?limit=100`, { headers: { 'x-api-key': v.apiKey } });
  return ((await res.json()) as { data: { delivery_status: string }[] }).data.map((e) => e.delivery_status);
}

describe('webhooks listen against the variant', { timeout: 30_000 }, () => {
  it('accepts its timestamped signatures by default and stores each event with the scheme', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'offramp-variant-listen-')), 'events.ndjson');
    const listener = listenInProcess(['--store', store, '-o', 'ndjson'], { OFFRAMP_WEBHOOK_SECRET: VARIANT_SECRET });
    const v = await startVariant({ webhookUrl: await listener.url, webhookSecret: VARIANT_SECRET });
    opened.push(v);
    const txId = await walk(v);
    const lines = (await listener.lines(4)).map((l) => JSON.parse(l) as { outcome: string; scheme?: string; type: string });
    expect(lines.map((l) => [l.type, l.outcome, l.scheme])).toEqual([
      ['transaction.created', 'accepted', VARIANT.signatureScheme],
      ['deposit.detected', 'accepted', VARIANT.signatureScheme],
      ['deposit.confirmed', 'accepted', VARIANT.signatureScheme],
      ['transaction.completed', 'accepted', VARIANT.signatureScheme],
    ]);
    const stored = readFileSync(store, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { scheme: string; body: string });
    expect(stored.map((s) => s.scheme)).toEqual(Array(4).fill(VARIANT.signatureScheme));
    expect(stored.every((s) => JSON.parse(s.body).data.id === txId)).toBe(true);
    await expect.poll(() => statuses(v)).toEqual(Array(4).fill(VARIANT.deliveryStatus.delivered));
    expect((await listener.stop()).code).toBe(130);
  });

  it('pinned to the emulator’s scheme, refuses every delivery (401) and stores none', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'offramp-variant-listen-')), 'events.ndjson');
    const listener = listenInProcess(['--store', store, '--scheme', 'hmac-sha256-hex', '-o', 'ndjson'], { OFFRAMP_WEBHOOK_SECRET: VARIANT_SECRET });
    const v = await startVariant({ webhookUrl: await listener.url, webhookSecret: VARIANT_SECRET, emulator: { webhookRetry: { maxAttempts: 1, baseDelayMs: 5 } } });
    opened.push(v);
    await walk(v);
    const lines = (await listener.lines(4)).map((l) => JSON.parse(l) as { outcome: string; httpStatus?: number });
    expect(lines.map((l) => l.outcome)).toEqual(Array(4).fill('rejected'));
    await expect.poll(() => statuses(v)).toEqual(Array(4).fill(VARIANT.deliveryStatus.failed));
    await listener.stop();
    expect(readFileSync(store, 'utf8')).toBe('');
  });
});

const VARIANT_SECRET = 'whsec_variant_listen_3c9e';
