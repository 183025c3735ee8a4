// The one request path against a real loopback server: headers, retries, backoff timing,
// idempotency, timeouts, schema errors and the verbose trace.
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { HttpClient } from '../../src/lib/client/http.js';
import { displayUrl } from '../../src/lib/client/url.js';
import { runCli } from '../helpers/cli.js';
import { ApiError, NetworkError, SchemaError, TimeoutError } from '../../src/lib/errors.js';
import { failingProxy } from '../helpers/faulty.js';
import { drop, errorBody, json, scriptedServer, type Answer } from '../helpers/server.js';

const KEY = 'sk_test_secret_value_42';
const ok = (data: unknown) => json(200, { success: true, data });
const Thing = z.looseObject({ id: z.string() });

let servers: Awaited<ReturnType<typeof scriptedServer>>[] = [];
afterEach(async () => {
  for (const s of servers) {
    await s.close();
  }
  servers = [];
});

async function setup(answers: Parameters<typeof scriptedServer>[0], opts: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) {
  const server = await scriptedServer(answers);
  servers.push(server);
  const trace: string[] = [];
  const client = new HttpClient({
    baseUrl: `${server.baseUrl}/`,
    apiKey: KEY,
    userAgent: 'offramp-cli/test',
    timeoutMs: 2_000,
    retries: 3,
    backoffBaseMs: 5,
    trace: (l) => trace.push(l),
    ...opts,
  });
  return { server, client, trace };
}

describe('HttpClient', () => {
  it('tells an observer every attempt: the 429s and 5xx it absorbed, their Retry-After, and the answer', async () => {
    const { client } = await setup([
      json(429, errorBody('RATE_LIMITED', 'slow down'), { 'retry-after': '0' }),
      json(503, errorBody('UNAVAILABLE', 'later')),
      drop,
      ok({ id: 'a' }),
    ]);
    const seen: unknown[] = [];
    const stop = client.observe((a) => seen.push({ attempt: a.attempt, status: a.status, retryAfterMs: a.retryAfterMs, again: a.again, error: a.error?.constructor.name }));
    await client.request({ method: 'GET', path: '/things/a', schema: Thing });
    expect(seen).toEqual([
      { attempt: 0, status: 429, retryAfterMs: 0, again: true, error: 'ApiError' },
      { attempt: 1, status: 503, retryAfterMs: undefined, again: true, error: 'ApiError' },
      { attempt: 2, status: undefined, retryAfterMs: undefined, again: true, error: 'NetworkError' },
      { attempt: 3, status: 200, retryAfterMs: undefined, again: false, error: undefined },
    ]);
    stop();
  });

  it('an observer sees the last attempt as final when the retries run out', async () => {
    const { client } = await setup([json(500, errorBody('BOOM', 'x')), json(500, errorBody('BOOM', 'x'))], { retries: 1 });
    const again: boolean[] = [];
    client.observe((a) => again.push(a.again));
    await expect(client.request({ method: 'GET', path: '/t', schema: Thing })).rejects.toBeInstanceOf(ApiError);
    expect(again).toEqual([true, false]);
  });

  it('joins the base URL and sends key, user agent and JSON body', async () => {
    const { server, client } = await setup([ok({ id: 'a' })]);
    const res = await client.request({ method: 'POST', path: '/quotes', body: { fiat_amount: '5000' }, schema: Thing, idempotencyKey: 'k-1' });
    expect(res.data).toEqual({ id: 'a' });
    const [req] = server.requests;
    expect(req!.url).toBe('/api/v1/partner/quotes');
    expect(req!.headers['x-api-key']).toBe(KEY);
    expect(req!.headers['user-agent']).toBe('offramp-cli/test');
    expect(req!.headers['idempotency-key']).toBe('k-1');
    expect(JSON.parse(req!.body)).toEqual({ fiat_amount: '5000' });
  });

  it('returns the raw data with unknown fields intact', async () => {
    const { client } = await setup([ok({ id: 'a', added_later: { x: 1 } })]);
    expect((await client.request({ method: 'GET', path: '/t', schema: Thing })).data).toEqual({ id: 'a', added_later: { x: 1 } });
  });

  it('retries a GET on 503 and 500, then succeeds', async () => {
    const { server, client } = await setup([json(503, errorBody('SERVICE_UNAVAILABLE', 'down')), json(500, errorBody('INTERNAL_ERROR', 'x')), ok({ id: 'b' })]);
    expect((await client.request({ method: 'GET', path: '/t', schema: Thing })).data.id).toBe('b');
    expect(server.requests).toHaveLength(3);
  });

  it('honours Retry-After on 429', async () => {
    const { server, client } = await setup([json(429, errorBody('RATE_LIMITED', 'slow down'), { 'retry-after': '1' }), ok({ id: 'c' })]);
    await client.request({ method: 'GET', path: '/t', schema: Thing });
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('gives up after the retry ceiling with the last error', async () => {
    const answers = Array(3).fill(json(503, errorBody('SERVICE_UNAVAILABLE', 'still down')));
    const { server, client } = await setup(answers, { retries: 2 });
    const err = await client.request({ method: 'GET', path: '/t', schema: Thing }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', exitCode: 1 });
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a POST without an idempotency key after a 500 or a dropped connection', async () => {
    const { server, client } = await setup([json(500, errorBody('INTERNAL_ERROR', 'boom'))]);
    await expect(client.request({ method: 'POST', path: '/x', schema: Thing })).rejects.toBeInstanceOf(ApiError);
    expect(server.requests).toHaveLength(1);
    const second = await setup([drop]);
    await expect(second.client.request({ method: 'POST', path: '/x', schema: Thing })).rejects.toBeInstanceOf(NetworkError);
    expect(second.server.requests).toHaveLength(1);
  });

  it('retries a POST with its key, the same key every time', async () => {
    const { server, client } = await setup([drop, json(503, errorBody('SERVICE_UNAVAILABLE', 'x')), ok({ id: 'd' })]);
    await client.request({ method: 'POST', path: '/transactions', body: { a: 1 }, idempotencyKey: 'same-key', schema: Thing });
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['same-key', 'same-key', 'same-key']);
    expect(new Set(server.requests.map((r) => r.body)).size).toBe(1);
  });

  it('retries even a keyless POST on 429: the service did nothing', async () => {
    const { server, client } = await setup([json(429, errorBody('RATE_LIMITED', 'x'), { 'retry-after': '0' }), ok({ id: 'e' })]);
    await client.request({ method: 'POST', path: '/webhooks/events/x/replay', schema: Thing });
    expect(server.requests).toHaveLength(2);
  });

  it("holds every request of the client for a 429's Retry-After; the refused one is asked again first", async () => {
    // Sleeps that end when the test says: what is sent when, without a clock.
    const sleeps: { ms: number; end: () => void }[] = [];
    const sleep = (ms: number) => new Promise<void>((end) => void sleeps.push({ ms, end }));
    const { server, client } = await setup([json(429, errorBody('RATE_LIMITED', 'slow down'), { 'retry-after': '2' }), ok({ id: 'a' }), ok({ id: 'b' })], {
      sleep,
      random: () => 0.5,
    });
    const a = client.request({ method: 'GET', path: '/a', schema: Thing });
    await vi.waitFor(() => expect(sleeps).toHaveLength(1));
    expect(sleeps[0]!.ms).toBe(2000); // /a's own wait: its Retry-After
    const b = client.request({ method: 'GET', path: '/b', schema: Thing });
    await vi.waitFor(() => expect(sleeps).toHaveLength(2));
    // /b, sent after the 429, waits out what is left of the same Retry-After...
    expect(sleeps[1]!.ms).toBeGreaterThan(1000);
    expect(sleeps[1]!.ms).toBeLessThanOrEqual(2000);
    sleeps[1]!.end();
    // ...then a backoff more (base 5 ms: retry 1's ceiling 10 ms, drawn at 0.5), unsent all along.
    await vi.waitFor(() => expect(sleeps).toHaveLength(3));
    expect(sleeps[2]!.ms).toBe(5);
    expect(server.requests.map((r) => r.url.replace(/.*\//, '/'))).toEqual(['/a']);
    sleeps[0]!.end();
    expect((await a).data.id).toBe('a');
    expect(server.requests.map((r) => r.url.replace(/.*\//, '/'))).toEqual(['/a', '/a']);
    sleeps[2]!.end();
    expect((await b).data.id).toBe('b');
    expect(server.requests.map((r) => r.url.replace(/.*\//, '/'))).toEqual(['/a', '/a', '/b']);
    expect(sleeps).toHaveLength(3);
  });

  it('a hold longer than the overall deadline leaves ends at once, as a retry that would not fit does', async () => {
    const sleeps: number[] = [];
    const { server, client } = await setup([json(429, errorBody('RATE_LIMITED', 'slow down'), { 'retry-after': '30' })], {
      sleep: async (ms: number) => void sleeps.push(ms),
      retries: 0,
    });
    await expect(client.request({ method: 'GET', path: '/a', schema: Thing })).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    const err = await client
      .withBudget(() => 2000)
      .request({ method: 'GET', path: '/b', schema: Thing })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toMatch(/^GET \S+\/b: the service asked this key to wait 30 s \(429 Retry-After\), longer than the overall deadline leaves$/);
    expect(sleeps).toEqual([]);
    expect(server.requests.map((r) => r.url.replace(/.*\//, '/'))).toEqual(['/a']);
  });

  it('times out with a distinct error', async () => {
    const { client } = await setup([() => undefined], { timeoutMs: 150, retries: 0 });
    const err = await client.request({ method: 'GET', path: '/slow', schema: Thing }).catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.exitCode).toBe(7);
  });

  it('reports a refused connection as a network error (exit 7)', async () => {
    const client = new HttpClient({ baseUrl: 'http://127.0.0.1:1/api/v1/partner', apiKey: KEY, userAgent: 't', timeoutMs: 1000, retries: 1, backoffBaseMs: 1 });
    const err = await client.request({ method: 'GET', path: '/t', schema: Thing }).catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toMatch(/connection refused/);
  });

  it('turns a 2xx body that breaks the schema into a clear error', async () => {
    const { client } = await setup([ok({ nope: true })]);
    const err = await client.request({ method: 'GET', path: '/t', schema: Thing }).catch((e) => e);
    expect(err).toBeInstanceOf(SchemaError);
    expect(err.message).toMatch(/data\.id/);
  });

  it('shows URLs without their password', () => {
    expect(displayUrl('https://ops:s3cret@api.example.com/api/v1/partner')).toBe('https://ops:***@api.example.com/api/v1/partner');
    expect(displayUrl('https://api.example.com/x')).toBe('https://api.example.com/x');
    // One that does not parse (a base URL mistyped in a profile) keeps its password off the screen too.
    expect(displayUrl('https://ops:s3cret@[::1/api')).toBe('https://ops:***@[::1/api');
    // A webhook URL's credentials (a user name alone may be a token), query and fragment stay off the screen; its path shows.
    expect(displayUrl('https://ops:s3cret@hooks.example/in?token=abc#frag', { query: false })).toBe('https://hooks.example/in?…');
    expect(displayUrl('https://tok_live_1@hooks.example/in', { query: false })).toBe('https://hooks.example/in');
    expect(displayUrl('http://127.0.0.1:9/gone', { query: false })).toBe('http://127.0.0.1:9/gone');
  });

  it('never puts the key in the verbose trace', async () => {
    const { client, trace } = await setup([json(503, errorBody('X', 'y')), ok({ id: 'f' })]);
    await client.request({ method: 'GET', path: '/t', query: { limit: 5 }, schema: Thing });
    expect(trace.join('\n')).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/partner\/t\?limit=5/);
    expect(trace.join('\n')).toMatch(/< 200 .* request-id=req_test/);
    expect(trace.join('\n')).not.toContain(KEY);
  });

  it('withStop: a stop lets go of the request in flight and sends no retry, whatever --timeout says', async () => {
    // Never answered: only the stop can end it (its deadline is a minute away, with retries).
    const silent: Answer = () => new Promise<void>(() => undefined);
    const { server, client } = await setup([silent], { timeoutMs: 60_000 });
    const stop = new AbortController();
    const reason = new Error('stopped by the test');
    const sent = client.withStop(stop.signal).request({ method: 'GET', path: '/t', schema: Thing });
    await expect.poll(() => server.requests.length).toBe(1);
    stop.abort(reason);
    await expect(sent).rejects.toBe(reason);
    // Retries were left: none was sent after the stop, and a stopped client sends nothing more.
    await expect(client.withStop(stop.signal).request({ method: 'GET', path: '/t', schema: Thing })).rejects.toBe(reason);
    expect(server.requests).toHaveLength(1);
  });

  it('withStop: a stop also lets go of a CONNECT the proxy never answers (no connection yet)', async () => {
    const proxy = await failingProxy('silent');
    const client = new HttpClient({ baseUrl: 'http://127.0.0.1:9/api', apiKey: KEY, userAgent: 'offramp-cli/test', timeoutMs: 60_000, retries: 3, env: { http_proxy: proxy.url } });
    try {
      const stop = new AbortController();
      const reason = new Error('stopped by the test');
      const sent = client.withStop(stop.signal).request({ method: 'GET', path: '/t', schema: Thing });
      await expect.poll(() => proxy.connects()).toBe(1);
      stop.abort(reason);
      await expect(sent).rejects.toBe(reason);
      expect(proxy.connects()).toBe(1);
    } finally {
      await client.close();
      await proxy.close();
    }
  });
});

describe("response header limit (Node's)", () => {
  it('the built CLI refuses a response head over 16 KiB, and takes it under --max-http-header-size', async () => {
    const big = (_req: unknown, res: import('node:http').ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-padding': 'p'.repeat(20_000) });
      res.end(JSON.stringify({ data: { ok: true } }));
    };
    const server = await scriptedServer([big, big]);
    try {
      const env = { OFFRAMP_API_KEY: 'sk_test_headers', OFFRAMP_BASE_URL: server.baseUrl };
      const refused = await runCli(['api', 'GET', '/anything', '--retries', '0'], { env });
      expect(refused.code).toBe(7);
      expect(refused.stderr).toMatch(/^error: NETWORK: /);
      const taken = await runCli(['api', 'GET', '/anything'], { env: { ...env, NODE_OPTIONS: '--max-http-header-size=65536' } });
      expect(taken.code, taken.stderr).toBe(0);
      expect(JSON.parse(taken.stdout)).toMatchObject({ data: { ok: true } });
    } finally {
      await server.close();
    }
  });
});
