// Injected faults (500, 503, dropped after commit), latency, and the per-key rate limit.
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, directBody, eventually, expectError, idemKey, KEY, startApi, type Api } from './helpers.js';

afterEach(closeAll);

type Outcome = { kind: 'answer'; status: number; replayed: boolean; id?: string; code?: string } | { kind: 'dropped' };

async function attemptCreate(api: Api, body: unknown, key: string): Promise<Outcome> {
  try {
    const res = await fetch(`${api.emu.url}/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { data?: { id: string }; error?: { code: string } };
    return { kind: 'answer', status: res.status, replayed: res.headers.get('idempotent-replayed') === 'true', id: json.data?.id, code: json.error?.code };
  } catch {
    return { kind: 'dropped' };
  }
}

/** A read that retries through injected faults. */
async function readThrough(api: Api, path: string) {
  for (let i = 0; i < 50; i++) {
    const reply = await api.get(path);
    if (reply.status < 500) return reply;
  }
  throw new Error(`no answer for ${path}`);
}

describe('fault injection', () => {
  it('answers reads with 500 INTERNAL_ERROR or 503 SERVICE_UNAVAILABLE at rate 1', async () => {
    const api = await startApi({ faultRate: 1, seed: 3 });
    const codes = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const reply = await api.get('/transactions');
      expect([500, 503]).toContain(reply.status);
      codes.add(expectError(reply, reply.status, reply.status === 500 ? 'INTERNAL_ERROR' : 'SERVICE_UNAVAILABLE', /injected fault/));
    }
    expect(codes.size).toBe(2);
  });

  it('drops writes only after committing them: a retry with the same key replays, and nothing is created twice', async () => {
    const api = await startApi({ faultRate: 0.5, seed: 1234 });
    const seen = { dropped: 0, internal: 0, unavailable: 0, replayedAfterDrop: 0 };
    const created = new Set<string>();
    for (let n = 0; n < 30; n++) {
      const body = directBody();
      const key = idemKey();
      let dropped = false;
      for (let attempt = 0; attempt < 30; attempt++) {
        const outcome = await attemptCreate(api, body, key);
        if (outcome.kind === 'dropped') {
          seen.dropped++;
          dropped = true;
        } else if (outcome.status === 500) {
          seen.internal++;
        } else if (outcome.status === 503) {
          seen.unavailable++;
        } else {
          expect(outcome.status).toBe(201);
          // Committed by the dropped attempt: the answer is that attempt's, replayed.
          expect(outcome.replayed).toBe(dropped);
          if (dropped) seen.replayedAfterDrop++;
          created.add(outcome.id!);
          break;
        }
      }
      expect(created.size).toBe(n + 1);
    }
    expect(seen.dropped).toBeGreaterThan(0);
    expect(seen.internal).toBeGreaterThan(0);
    expect(seen.unavailable).toBeGreaterThan(0);
    expect(seen.replayedAfterDrop).toBeGreaterThan(0);
    // Exactly one transaction per intended create.
    let count = 0;
    let cursor: string | null = null;
    do {
      const page: { data: { data: unknown[]; next_cursor: string | null } } = (await readThrough(api, `/transactions?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).body;
      count += page.data.data.length;
      cursor = page.data.next_cursor;
    } while (cursor);
    expect(count).toBe(30);
    expect(created.size).toBe(30);
  });

  it('repeats the same fault sequence for the same seed', async () => {
    const run = async () => {
      const api = await startApi({ faultRate: 0.4, seed: 77 });
      const statuses: string[] = [];
      for (let i = 0; i < 25; i++) {
        const outcome = await attemptCreate(api, directBody(), idemKey());
        statuses.push(outcome.kind === 'dropped' ? 'drop' : String(outcome.status));
      }
      return statuses;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(1);
  });
});

describe('latency', () => {
  it('delays every answer, errors included', async () => {
    const api = await startApi({ latencyMs: 120 });
    let started = performance.now();
    expect((await api.get('/transactions')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
    started = performance.now();
    expect((await api.get('/transactions', { key: 'sk_wrong' })).status).toBe(401);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
    started = performance.now();
    expect((await api.get('/no-such-route')).status).toBe(404);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });
});

describe('rate limit', () => {
  it('answers 429 RATE_LIMITED with Retry-After in whole seconds once a key exceeds its rate, per key', async () => {
    const api = await startApi({ rateLimit: 10, apiKeys: [KEY, 'sk_other'] });
    // 30 at once: at most 10 (plus what refills while they arrive) get through.
    const replies = await Promise.all(Array.from({ length: 30 }, () => api.get('/transactions')));
    const limited = replies.filter((r) => r.status === 429);
    expect(replies.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(limited.length).toBeGreaterThanOrEqual(10);
    for (const reply of limited) {
      expectError(reply, 429, 'RATE_LIMITED', /at most 10 requests per second per key/);
      expect(reply.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    }
    // Another partner has its own budget.
    expect((await api.get('/transactions', { key: 'sk_other' })).status).toBe(200);
    // The bucket refills (10/s: one request per 100 ms).
    await eventually(async () => expect((await api.get('/transactions')).status).toBe(200));
  });

  it('refuses a limited create without creating anything', async () => {
    const api = await startApi({ rateLimit: 5 });
    const replies = await Promise.all(Array.from({ length: 15 }, () => api.post('/transactions', directBody(), { idempotencyKey: idemKey() })));
    const created = replies.filter((r) => r.status === 201).length;
    expect(replies.some((r) => r.status === 429)).toBe(true);
    expect(created + replies.filter((r) => r.status === 429).length).toBe(15);
    // Listed once the bucket lets the list through.
    await eventually(async () => expect((await api.get('/transactions?limit=100')).body.data.data).toHaveLength(created));
  });
});
