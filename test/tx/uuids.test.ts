// Ids as the spec types them, "string, uuid" and nothing more (issue #21): any
// 8-4-4-4-12 hexadecimal id, whatever its version and variant nibbles, in either case, is
// taken as an argument, in an answer and by the emulator; anything else is refused
// before a request is sent.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { json, scriptedServer } from '../helpers/server.js';
import { history, KEY, ok, snapshot, summary } from './fixtures.js';

const IDS = {
  'version 1': 'c232ab00-9414-11ec-b3c8-9f68deced846',
  'version 2': '000003e8-2363-21ee-8200-325096b39f47',
  'version 3': '5df41881-3aed-3515-88a7-2f4a814cf09e',
  'version 4': '0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91',
  'version 5': '2ed6657d-e927-568b-95e1-2665a8aea6a2',
  'version 6': '1ec9414c-232a-6b00-b3c8-9f6bdeced846',
  'version 7': '017f22e2-79b0-7cc3-98c4-dc0c0c07398f',
  'version 8': '2489e9ad-2ee2-8e00-8ec9-32d5f69181c0',
  nil: '00000000-0000-0000-0000-000000000000',
  max: 'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'variant nibble 0 (NCS)': '0b6f3c1e-8d2a-4f51-0c1e-2a7d5e9b1c91',
  'variant nibble c (Microsoft)': '0b6f3c1e-8d2a-4f51-c91e-2a7d5e9b1c91',
  'variant nibble f': '0b6f3c1e-8d2a-4f51-f91e-2a7d5e9b1c91',
  'version nibble 0': '0b6f3c1e-8d2a-0f51-9c1e-2a7d5e9b1c91',
  'version nibble f': '0b6f3c1e-8d2a-ff51-9c1e-2a7d5e9b1c91',
  'upper case': '0B6F3C1E-8D2A-4F51-C91E-2A7D5E9B1C91',
} as const;

// A UUID cut short is a short id (docs/transactions.md, "Short ids"), looked for rather than refused.
const NOT_UUIDS = ['0b6f3c1e8d2a4f519c1e2a7d5e9b1c91', '{0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91}', '0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c9g', 'order-1'];

const servers: Awaited<ReturnType<typeof scriptedServer>>[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    await s.close();
  }
});

async function against(answers: Parameters<typeof scriptedServer>[0], args: string[]) {
  const server = await scriptedServer(answers);
  servers.push(server);
  const r = await runMain(['--retries', '0', ...args], { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl } });
  return { ...r, requests: server.requests };
}

describe('any 8-4-4-4-12 hexadecimal id', () => {
  it.each(Object.entries(IDS))('%s: taken as an argument and in the answer (tx get, tx history)', async (_kind, id) => {
    const got = await against([json(200, ok(snapshot({ id })))], ['tx', 'get', id, '--json']);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ id });
    expect(got.requests[0]!.url).toBe(`/api/v1/partner/transactions/${id}`);
    const hist = await against([json(200, ok(history(['awaiting_deposit'], { id })))], ['tx', 'history', id, '--json']);
    expect(hist.code, hist.stderr).toBe(0);
  });

  it('a create answered with a version-7 id, and a quote id of version 1, are a transaction created (not OUTCOME_UNKNOWN)', async () => {
    const direct = await against([json(201, ok(summary({ id: IDS['version 7'] })))], ['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', 'order-1', '--json']);
    expect(direct.code, direct.stderr).toBe(0);
    expect(JSON.parse(direct.stdout)).toMatchObject({ id: IDS['version 7'] });
    const quoted = await against([json(201, ok(summary({ id: IDS.max })))], ['tx', 'create', '--quote', IDS['version 1'], '--network', 'bep20', '--ref', 'order-1', '--json']);
    expect(quoted.code, quoted.stderr).toBe(0);
    expect(JSON.parse(quoted.requests[0]!.body)).toMatchObject({ quote_id: IDS['version 1'] });
  });

  it('webhook events with such ids are read and replayed', async () => {
    const [eventId, aggregateId] = [IDS['version 6'], IDS['variant nibble 0 (NCS)']];
    const event = { event_id: eventId, aggregate_id: aggregateId, event_type: 'deposit.detected', delivery_status: 'failed', attempts: 1, last_error: null, created_at: '2026-11-22T10:00:00.000Z', updated_at: '2026-11-22T10:00:00.000Z' };
    const got = await against([json(200, ok(event))], ['webhooks', 'get', eventId, '--json']);
    expect(got.code, got.stderr).toBe(0);
    const replay = { event_id: eventId, aggregate_id: aggregateId, event_type: 'deposit.detected', attempts: 1, publish_status: 'pending', replay_scheduled_at: '2026-11-22T10:00:00.000Z' };
    const replayed = await against([json(200, ok(replay))], ['webhooks', 'replay', eventId, '--json']);
    expect(replayed.code, replayed.stderr).toBe(0);
  });

  it.each(NOT_UUIDS)('"%s" is refused before any request (exit 2)', async (notId) => {
    const r = await against([], ['tx', 'get', notId]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error: USAGE: ID ".*" is not a UUID/);
    expect(r.requests).toEqual([]);
  });
});

describe('the emulator takes any such id in requests', () => {
  let emu: Awaited<ReturnType<typeof emulatorFor>>;
  beforeAll(async () => {
    emu = await emulatorFor();
  });
  afterAll(() => emu.close());
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${emu.emulator.url}${path}`, {
      method,
      headers: { 'x-api-key': TEST_KEY, 'idempotency-key': `k-${Math.random()}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as { error?: { message: string } } };
  };

  it.each(Object.entries(IDS))('%s: an unknown transaction or event is 404, not a 400 about its form', async (_kind, id) => {
    expect((await call('GET', `/transactions/${id}`)).status).toBe(404);
    expect((await call('GET', `/webhooks/events/${id}`)).status).toBe(404);
    const simulated = await call('POST', '/sandbox/simulate', { transaction_id: id, event: 'deposit.detected' });
    expect(simulated.status).toBe(404);
  });

  it('a quote id of another version is looked up (unknown quote), not refused for its form', async () => {
    const r = await call('POST', '/transactions', { quote_id: IDS['version 1'], network: 'bep20', merchant_reference: 'uuid-quote-1' });
    expect(r.status).toBe(400);
    expect(r.body.error!.message).not.toMatch(/UUID/i);
    expect((await call('GET', '/transactions/not-a-uuid')).status).toBe(400);
  });
});
