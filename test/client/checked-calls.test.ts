// Answers that contradict the question: a scripted service answers each
// command about something else than what was asked. Every such run exits 1 with
// ANSWER_MISMATCH naming both values, prints nothing on stdout, and sends nothing more;
// with --json the error is the envelope on stderr. In process (runMain).
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/main.js';
import { json, scriptedServer, type Answer } from '../helpers/server.js';
import { history, KEY, ok, QUOTE_ID, snapshot, summary, TX_ID } from '../tx/fixtures.js';

const OTHER_ID = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';
const EVENT_ID = '5d0e1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b';
const OTHER_EVENT = '6e1f2a3b-4c5d-4e6f-9a7b-8c9d0e1f2a3b';

const servers: Awaited<ReturnType<typeof scriptedServer>>[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    await s.close();
  }
});

/** Runs `args` against a service that answers `answers`, in order. */
async function against(answers: Answer[], args: string[]) {
  const server = await scriptedServer(answers);
  servers.push(server);
  const r = await runMain(['--retries', '0', ...args], { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl } });
  return { ...r, requests: server.requests };
}

/** The run failed as a contradicting answer: exit 1, its code, both values named, stdout empty. */
function expectMismatch(r: { code: number; stdout: string; stderr: string }, ...named: string[]) {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  const error = /^error: ANSWER_MISMATCH: (.*)$/m.exec(r.stderr)?.[1];
  expect(error, r.stderr).toBeDefined();
  for (const value of named) expect(error).toContain(value);
  expect(r.stderr).toMatch(/^hint: /m);
}

describe('reads answered about another transaction', () => {
  it('tx get ID: another transaction is refused, naming both ids', async () => {
    const r = await against([json(200, ok(snapshot({ id: OTHER_ID })))], ['tx', 'get', TX_ID]);
    expectMismatch(r, TX_ID, OTHER_ID);
    expect(r.stderr).toMatch(/asked for transaction 0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91, and the service answered about transaction 9a8b7c6d-/);
  });

  it('tx get ID in capitals is the same id', async () => {
    const r = await against([json(200, ok(snapshot()))], ['tx', 'get', TX_ID.toUpperCase(), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(snapshot());
  });

  it('tx get --ref: another reference is refused; one that differs only in case is the same reference', async () => {
    const other = await against([json(200, ok(snapshot({ merchant_reference: 'order-2' })))], ['tx', 'get', '--ref', 'order-1']);
    expectMismatch(other, '"order-1"', '"order-2"', TX_ID);
    const none = await against([json(200, ok(snapshot({ merchant_reference: null })))], ['tx', 'get', '--ref', 'order-1']);
    expectMismatch(none, '"order-1"', 'none');

    const caseOnly = await against([json(200, ok(snapshot({ merchant_reference: 'ORDER-1' })))], ['tx', 'get', '--ref', 'order-1', '--json']);
    expect(caseOnly.code, caseOnly.stderr).toBe(0);
    expect(JSON.parse(caseOnly.stdout)).toMatchObject({ merchant_reference: 'ORDER-1' });
  });

  it('tx history: the history of another transaction is refused', async () => {
    const r = await against([json(200, ok(history(['awaiting_deposit'], { id: OTHER_ID })))], ['tx', 'history', TX_ID]);
    expectMismatch(r, TX_ID, OTHER_ID);
    expect(r.stderr).toContain('status history');
  });

  it('with --json the error is the envelope on stderr', async () => {
    const r = await against([json(200, ok(snapshot({ id: OTHER_ID })))], ['tx', 'get', TX_ID, '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const envelope = JSON.parse(r.stderr) as { error: { code: string; message: string } };
    expect(envelope.error.code).toBe('ANSWER_MISMATCH');
    expect(envelope.error.message).toContain(OTHER_ID);
  });
});

describe('tx create answered for another request', () => {
  const CREATE = ['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', 'order-1', '--idempotency-key', 'key-reused-1'];

  it.each([
    ['another reference', { merchant_reference: 'order-0' }, ['reference "order-0", not "order-1"']],
    ['another amount', { amount: '7500.00' }, ['amount 7500.00 NGN, not 5000']],
    ['another network', { network: 'trc20' }, ['network trc20, not bep20']],
    ['another token', { crypto_currency: 'usdc' }, ['token usdc, not usdt']],
  ] as const)('%s: exit 1, both values named, the key suspected; no retry, no recovery', async (_what, answer, named) => {
    const r = await against([json(201, ok(summary(answer)))], CREATE);
    expectMismatch(r, ...named, TX_ID, 'The Idempotency-Key key-reused-1 may have been used for another request');
    expect(r.stderr).toMatch(/hint: nothing was shown as created; run again with a fresh --idempotency-key \(or none\)\. `offramp tx get --ref order-1` shows whether "order-1" exists/);
    expect(r.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['POST /api/v1/partner/transactions']);
  });

  it('an amount written with other decimals and a reference in other case are the same request', async () => {
    const r = await against([json(201, ok(summary({ amount: '5000.00', merchant_reference: 'Order-1', network: 'BEP20' })))], [...CREATE, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: TX_ID, amount: '5000.00' });
  });

  it('quote mode: reference and network are compared; the token and amount, fixed by the quote, cannot be', async () => {
    const QUOTE = ['tx', 'create', '--quote', QUOTE_ID, '--network', 'bep20', '--ref', 'order-1'];
    const otherRef = await against([json(201, ok(summary({ merchant_reference: 'order-9' })))], QUOTE);
    expectMismatch(otherRef, 'reference "order-9", not "order-1"');
    const otherNetwork = await against([json(201, ok(summary({ network: 'erc20' })))], QUOTE);
    expectMismatch(otherNetwork, 'network erc20, not bep20');
    // The request names neither token nor amount, and the answer carries no quote id.
    const priced = await against([json(201, ok(summary({ crypto_currency: 'usdc', amount: '123.45' })))], [...QUOTE, '--json']);
    expect(priced.code, priced.stderr).toBe(0);
  });

  it('recovery by reference: a lookup answered with another reference is refused too', async () => {
    const r = await against([json(503, { error: { code: 'DOWN', message: 'down', timestamp: '2026-11-22T10:00:00Z' } }), json(200, ok(snapshot({ merchant_reference: 'order-7' })))], CREATE);
    expectMismatch(r, '"order-1"', '"order-7"');
  });
});

describe('writes answered about something else', () => {
  it('tx cancel: an answer for another transaction leaves this one unknown', async () => {
    const r = await against([json(200, ok(summary({ id: OTHER_ID, status: 'cancelled' }), 'Transaction cancelled'))], ['tx', 'cancel', TX_ID, '--yes']);
    expectMismatch(r, TX_ID, OTHER_ID);
    expect(r.stderr).toContain(`\`offramp tx get ${TX_ID}\` shows whether it was cancelled`);
    expect(r.stderr).not.toContain('Transaction cancelled');
  });

  it('tx cancel: a 2xx whose status is not cancelled is not a cancellation', async () => {
    const r = await against([json(200, ok(summary({ status: 'awaiting_deposit' })))], ['tx', 'cancel', TX_ID, '--yes']);
    expectMismatch(r, TX_ID, 'awaiting_deposit, not cancelled');
  });

  it('simulate: a snapshot of another transaction is refused', async () => {
    const r = await against([json(200, ok(snapshot({ id: OTHER_ID, status: 'deposit_confirming' })))], ['simulate', TX_ID, 'deposit.detected']);
    expectMismatch(r, `sent deposit.detected for transaction ${TX_ID}`, OTHER_ID);
  });

  it('webhooks replay: another event_id is that event failing, and the table never shows it as the one asked', async () => {
    const replayed = (id: string) => json(200, ok({ event_id: id, aggregate_id: TX_ID, event_type: 'deposit.detected', attempts: 2, publish_status: 'pending', replay_scheduled_at: '2026-11-22T10:00:00.000Z' }, 'Webhook replay scheduled'));
    const r = await against([replayed(OTHER_EVENT)], ['webhooks', 'replay', EVENT_ID]);
    expectMismatch(r, EVENT_ID, OTHER_EVENT);
    expect(r.stderr).toMatch(/^error: ANSWER_MISMATCH: 1 of 1 event did not replay: 5d0e1a2b-.* \(ANSWER_MISMATCH: asked to replay webhook event 5d0e1a2b-.*, and the service answered about event 6e1f2a3b-/m);

    // Beside one that did replay: its row is right, the other says it was not replayed.
    const mixed = await against([replayed(EVENT_ID), replayed(OTHER_EVENT)], ['webhooks', 'replay', EVENT_ID, TX_ID, '--concurrency', '1']);
    expect(mixed.code).toBe(1);
    expect(mixed.stdout).toMatch(new RegExp(`^${EVENT_ID} +deposit\\.detected +${TX_ID} +2 +pending$`, 'm'));
    expect(mixed.stdout).toMatch(new RegExp(`^${TX_ID} .* not replayed: ANSWER_MISMATCH: `, 'm'));
    expect(mixed.stdout).not.toContain(OTHER_EVENT.slice(0, 8) + ' ');
  });

  it('webhooks get: telemetry of another event is refused', async () => {
    const event = { event_id: OTHER_EVENT, aggregate_id: TX_ID, event_type: 'deposit.detected', delivery_status: 'delivered', attempts: 1, last_error: null, created_at: '2026-11-22T10:00:00.000Z', updated_at: '2026-11-22T10:00:00.000Z' };
    const r = await against([json(200, ok(event))], ['webhooks', 'get', EVENT_ID]);
    expectMismatch(r, EVENT_ID, OTHER_EVENT);
  });
});

describe('revenue summary answered for another window', () => {
  const page = (summary: Record<string, unknown>) => json(200, ok({ data: [], has_more: false, limit: 1, next_cursor: null, summary }));

  it("a month's summary for the day asked is refused, naming both windows", async () => {
    const r = await against([page({ from: '2026-10-01T00:00:00.000Z', to: '2026-10-31T23:59:59.999Z', total_partner_share: '98765.43', transaction_count: 412 })], ['revenue', 'summary', '--from', '2026-10-15', '--to', '2026-10-15']);
    expectMismatch(r, '2026-10-15T00:00:00.000Z … 2026-10-15T23:59:59.999Z', '2026-10-01T00:00:00.000Z … 2026-10-31T23:59:59.999Z');
    expect(r.stderr).not.toContain('98765.43');
  });

  it('the same window written in whole seconds with an offset is the window asked', async () => {
    const r = await against([page({ from: '2026-10-15T00:00:00+00:00', to: '2026-10-15T23:59:59+00:00', total_partner_share: '12.50', transaction_count: 2 })], ['revenue', 'summary', '--from', '2026-10-15', '--to', '2026-10-15', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ total_partner_share: '12.50', transaction_count: 2 });
  });

  it('with --token the rows are summed here: a row from outside the window is refused', async () => {
    const row = { transaction_id: TX_ID, merchant_id: 'm-1', merchant_reference: 'order-1', terminal_id: 't-1', crypto_currency: 'usdt', network: 'bep20', crypto_amount: '3.2', amount: '5000.00', platform_fee: '50.00', share: '12.50', ts: '2026-10-20T10:00:00.000Z' };
    const r = await against([json(200, ok({ data: [row], has_more: false, limit: 100, next_cursor: null }))], ['revenue', 'summary', '--from', '2026-10-15', '--to', '2026-10-15', '--token', 'usdt']);
    expectMismatch(r, '2026-10-20T10:00:00.000Z', TX_ID);
  });
});
