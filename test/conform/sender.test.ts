// conform's sender over the CLI's own client: the client's retries and backoff, every 429
// seen through the attempt hook (the report states Retry-After's form even when a retry
// then succeeded), and error statuses given back as answers to look at.
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/lib/client/http.js';
import { createSender } from '../../src/lib/conform/probes.js';
import { NetworkError } from '../../src/lib/errors.js';
import { drop, errorBody, json, scriptedServer } from '../helpers/server.js';

async function senderFor(answers: Parameters<typeof scriptedServer>[0]) {
  const server = await scriptedServer(answers);
  const waits: number[] = [];
  const client = new HttpClient({
    baseUrl: server.baseUrl,
    apiKey: 'sk_test_conform_sender',
    userAgent: 'offramp-cli/test',
    timeoutMs: 2_000,
    retries: 2,
    sleep: async (ms) => void waits.push(ms),
    random: () => 0,
  });
  const close = async () => {
    await Promise.all([client.close(), server.close()]);
  };
  return { server, waits, sender: createSender(client), close };
}

describe('conform sender', () => {
  it('waits out a 429 as the client does, and records its Retry-After as sent', async () => {
    const date = new Date(Date.now() + 3_000).toUTCString();
    const { server, waits, sender, close } = await senderFor([
      json(429, errorBody('RATE_LIMITED', 'slow down'), { 'retry-after': date }),
      json(429, errorBody('RATE_LIMITED', 'slow down')),
      json(200, { success: true, data: { id: 'a' } }),
    ]);
    const a = await sender.send({ method: 'POST', path: '/quotes', body: { fiat_amount: '5000.00' } });
    await close();
    expect(a).toMatchObject({ ok: true, status: 200, body: { data: { id: 'a' } } });
    expect(server.requests).toHaveLength(3);
    expect(sender.retryAfter).toEqual([date, '']);
    // Retry-After honoured (about 3 s, from a date at one-second precision), then the backoff (random 0).
    expect(waits[0]).toBeGreaterThan(1_000);
    expect(waits[0]).toBeLessThanOrEqual(3_000);
    expect(waits[1]).toBe(0);
  });

  it('gives an error status back as an answer; a 5xx on a POST without a key is not repeated', async () => {
    const { server, sender, close } = await senderFor([
      json(500, errorBody('INTERNAL', 'boom')),
      json(401, errorBody('UNAUTHORIZED', 'who are you')),
    ]);
    const failed = await sender.send({ method: 'POST', path: '/sandbox/simulate', body: {} });
    const refused = await sender.send({ method: 'GET', path: '/transactions' });
    await close();
    expect(failed).toMatchObject({ ok: false, status: 500, code: 'INTERNAL', enveloped: true, message: 'boom' });
    expect(refused).toMatchObject({ ok: false, status: 401, code: 'UNAUTHORIZED', body: errorBody('UNAUTHORIZED', 'who are you') });
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'GET']);
    expect(sender.retryAfter).toEqual([]);
  });

  it('no answer after the retries is thrown: conform cannot go on without the service', async () => {
    const { server, sender, close } = await senderFor([drop, drop, drop]);
    await expect(sender.send({ method: 'GET', path: '/transactions' })).rejects.toBeInstanceOf(NetworkError);
    await close();
    expect(server.requests).toHaveLength(3);
  });
});
