// Every 400 the emulator gives is one its operation declares (not only the `default`
// error answer), in the document's BAD_REQUEST shape: each operation is sent the bad
// request a partner is likeliest to make, over HTTP, and the answer held to the document.
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Answered } from '../../src/emulator/index.js';
import { openapiPath } from '../../src/lib/openapi/document.js';
import { documentChecker, DOCUMENT_PATH, holdToDocument } from '../helpers/openapi.js';
import { closeAll, startApi } from '../emulator/helpers.js';

afterEach(closeAll);

const doc = parse(readFileSync(DOCUMENT_PATH, 'utf8'));
const check = documentChecker(doc);

it('each operation declares the 400 the emulator answers it with', async () => {
  const answers: Answered[] = [];
  const api = await startApi({ onAnswer: (a) => (answers.push(a), holdToDocument(a)) });
  const key = { idempotencyKey: 'k-400' };
  const asked: [string, Promise<unknown>][] = [
    ['POST /quotes', api.post('/quotes', { crypto_currency: 'usdt', network: 'bep20', crypto_amount: '1', fiat_amount: '2' })],
    ['POST /transactions', api.post('/transactions', { merchant_reference: 'r' }, key)],
    ['GET /transactions', api.get('/transactions?limit=0')],
    ['GET /transactions/:id', api.get('/transactions/not-a-uuid')],
    ['POST /transactions/:id/cancel', api.post('/transactions/not-a-uuid/cancel', undefined, key)],
    ['GET /transactions/:id/status-history', api.get('/transactions/not-a-uuid/status-history')],
    ['GET /revenue', api.get('/revenue?from=2026-01-01T00:00:00Z&to=2026-12-31T00:00:00Z')],
    ['GET /webhooks/events', api.get('/webhooks/events?limit=101')],
    ['GET /webhooks/events/:event_id', api.get('/webhooks/events/not-a-uuid')],
    ['POST /webhooks/events/:event_id/replay', api.post('/webhooks/events/not-a-uuid/replay')],
    ['POST /sandbox/simulate', api.post('/sandbox/simulate', { transaction_id: '0f8e2b1c-4d5a-4b6c-8d7e-9f0a1b2c3d4e', event: 'deposit.lost' })],
  ];
  await Promise.all(asked.map(([, p]) => p));
  for (const [route] of asked) {
    const answer = answers.find((a) => a.route === route);
    expect(answer?.status, route).toBe(400);
    const [method, path] = route.split(' ') as [string, string];
    expect(Object.keys(doc.paths[openapiPath(path)][method.toLowerCase()].responses), route).toContain('400');
    expect(check(answer!)).toEqual([]);
  }
  // The only operation without one answers none: a reference is any non-empty text.
  expect(Object.keys(doc.paths['/transactions/reference/{merchant_reference}'].get.responses)).not.toContain('400');
});
