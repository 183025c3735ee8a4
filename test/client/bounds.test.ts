// Every attempt within --timeout and every answer within the size cap, whatever the
// server does: silent, dripping, a TLS port that never finishes the handshake, interim
// 1xx answers before the final one, endless or huge bodies (peak memory of the built
// binary), huge error messages, Retry-After values no timer can hold, and text that is
// not UTF-8.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { HttpClient, parseRetryAfter } from '../../src/lib/client/http.js';
import { endlessBody, onRequests, rawServer, runCliMeasured } from '../helpers/faulty.js';
import { runMain } from '../helpers/main.js';
import { errorBody, json, scriptedServer } from '../helpers/server.js';
import { KEY, ok, snapshot, TX_ID } from '../tx/fixtures.js';
import { ledgerRow } from '../revenue/export-helpers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A raw server answering every request with `reply(socket)`; its base URL. */
async function raw(reply: (socket: Socket, head: string) => void, scheme = 'http') {
  const server = await rawServer((socket) => onRequests(socket, (head) => reply(socket, head)));
  closers.push(server.close);
  return { ...server, baseUrl: `${scheme}://127.0.0.1:${server.port}/api/v1/partner` };
}

async function timed(args: string[], baseUrl: string, env: Record<string, string> = {}) {
  const started = Date.now();
  const r = await runMain(args, { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: baseUrl, ...env } });
  return { ...r, ms: Date.now() - started };
}

const MARGIN_MS = 5_000;
/**
 * --timeout of the cases that wait it out: short, as nothing answers, yet far above what a
 * loopback connection takes even on a loaded machine, so "no answer" is never "no connection".
 */
const SHORT_MS = 250;
const createArgs = ['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', 'bounded-1'];

describe('one deadline per attempt, over every phase', () => {
  it('a server that never answers: TIMEOUT at --timeout, each retry its own attempt', async () => {
    let requests = 0;
    const server = await raw(() => requests++);
    const r = await timed(['tx', 'get', TX_ID, '--timeout', String(SHORT_MS), '--retries', '1'], server.baseUrl);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`error: TIMEOUT: GET ${server.baseUrl}/transactions/${TX_ID}: no answer within ${SHORT_MS} ms`);
    expect(requests).toBe(2);
    expect(r.ms).toBeGreaterThanOrEqual(2 * SHORT_MS - 20);
    expect(r.ms).toBeLessThan(2 * SHORT_MS + MARGIN_MS);
  });

  it('a body that drips a byte at a time: the deadline covers the body too', async () => {
    const server = await raw((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"success":true,');
      const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write(' ')), 50);
      socket.on('close', () => clearInterval(drip));
    });
    const r = await timed(['tx', 'get', TX_ID, '--timeout', String(SHORT_MS), '--retries', '0'], server.baseUrl);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`no answer within ${SHORT_MS} ms`);
    expect(r.ms).toBeLessThan(SHORT_MS + MARGIN_MS);
  });

  it('a TLS port that never finishes the handshake: no connection within --timeout; a create there is NOT_SENT', async () => {
    const server = await raw(() => undefined, 'https');
    const r = await timed(['tx', 'get', TX_ID, '--timeout', String(SHORT_MS), '--retries', '0'], server.baseUrl);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`error: NETWORK: GET ${server.baseUrl}/transactions/${TX_ID}: no connection within ${SHORT_MS} ms`);
    expect(r.ms).toBeLessThan(SHORT_MS + MARGIN_MS);
    const create = await timed([...createArgs, '--timeout', String(SHORT_MS), '--retries', '1'], server.baseUrl);
    expect(create.code).toBe(7);
    expect(create.stderr).toContain('error: NOT_SENT: ');
    expect(create.ms).toBeLessThan(2 * SHORT_MS + MARGIN_MS);
  });

  it('interim answers (100, 102, 103) before the final one are skipped, on a kept-alive connection too', async () => {
    const body = JSON.stringify(ok(snapshot({ status: 'completed' })));
    const server = await raw((socket) => {
      socket.write('HTTP/1.1 100 Continue\r\n\r\n');
      setTimeout(() => {
        socket.write('HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n');
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      }, 20);
    });
    const client = new HttpClient({ baseUrl: server.baseUrl, apiKey: KEY, userAgent: 't', timeoutMs: 5000, retries: 0 });
    closers.push(() => client.close());
    const Tx = z.looseObject({ status: z.string() });
    for (let i = 0; i < 4; i++) expect((await client.request({ method: 'GET', path: '/t', schema: Tx })).data.status).toBe('completed');
    // Kept alive: the later answers came on a connection that had carried one before.
    expect(server.connections()).toBeLessThan(4);
    expect((await client.request({ method: 'POST', path: '/t', body: { a: 1 }, idempotencyKey: 'k', schema: Tx })).data.status).toBe('completed');
    const cli = await timed(['tx', 'get', TX_ID, '--json'], server.baseUrl);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ id: TX_ID, status: 'completed' });
  });
});

describe('answers capped in size', () => {
  it('an endless 200 body, an endless 500 body: one line naming the cap, peak memory of the binary well under 300 MB', async () => {
    for (const status of [200, 500]) {
      const server = await scriptedServer([endlessBody(status)]);
      closers.push(server.close);
      const r = await runCliMeasured(['tx', 'get', TX_ID, '--timeout', '25000', '--retries', '0'], { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl });
      expect(r.code, r.stderr).toBe(1);
      if (status === 200) expect(r.stderr).toContain(`error: RESPONSE_TOO_LARGE: GET ${server.baseUrl}/transactions/${TX_ID} answered 200 with more than 8 MiB; it was not read further`);
      else expect(r.stderr).toContain(`GET /api/v1/partner/transactions/${TX_ID} answered HTTP 500 with more than 8 MiB (not read further)`);
      expect(r.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);
      expect(r.peakMiB).toBeLessThan(300);
      expect(r.ms).toBeLessThan(25_000);
    }
  });

  it('a declared 100 MB answer is refused unread; OFFRAMP_MAX_RESPONSE_BYTES raises the cap, and a bad value is a usage error', async () => {
    const big = JSON.stringify(ok(snapshot({ merchant_reference: 'r'.repeat(9 * 1024 * 1024) })));
    const server = await scriptedServer([
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(100 * 1024 * 1024) });
        res.write('{"success":');
      },
      (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(big),
    ]);
    closers.push(server.close);
    const refused = await timed(['tx', 'get', TX_ID, '--retries', '0'], server.baseUrl);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('answered 200 with more than 8 MiB');
    expect(refused.stderr).toContain('hint: if the service really sends answers this big, raise the cap with OFFRAMP_MAX_RESPONSE_BYTES');
    const raised = await timed(['tx', 'get', TX_ID, '--json'], server.baseUrl, { OFFRAMP_MAX_RESPONSE_BYTES: String(16 * 1024 * 1024) });
    expect(raised.code, raised.stderr.slice(0, 300)).toBe(0);
    const bad = await timed(['tx', 'get', TX_ID], server.baseUrl, { OFFRAMP_MAX_RESPONSE_BYTES: '8MB' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('error: USAGE: OFFRAMP_MAX_RESPONSE_BYTES is not a size in bytes ("8MB")');
    expect(server.requests).toHaveLength(2);
  });

  it("the emulator's control plane goes through the same client: a declared 100 MB answer refused unread, a silent one ends at --timeout", async () => {
    const server = await scriptedServer([
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(100 * 1024 * 1024) });
        res.write('{"success":');
      },
    ]);
    closers.push(server.close);
    const origin = new URL(server.baseUrl).origin;
    const big = await timed(['emulator', 'reset', '--base-url', origin, '--retries', '0'], server.baseUrl, { OFFRAMP_EMULATOR_ADMIN_TOKEN: 'admin-token-1' });
    expect(big.code, big.stderr).toBe(1);
    expect(big.stderr).toContain(`error: RESPONSE_TOO_LARGE: POST ${origin}/__emulator/reset answered 200 with more than 8 MiB; it was not read further`);
    expect(server.requests[0]!.headers).toMatchObject({ authorization: 'Bearer admin-token-1' });
    expect(server.requests[0]!.headers['x-api-key']).toBeUndefined();
    const silent = await raw(() => undefined);
    const r = await timed(['emulator', 'reset', '--base-url', `http://127.0.0.1:${silent.port}`, '--timeout', String(SHORT_MS), '--retries', '0'], silent.baseUrl);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`error: TIMEOUT: POST http://127.0.0.1:${silent.port}/__emulator/reset: no answer within ${SHORT_MS} ms`);
  });

  it("a huge error message is shown cut, whole under --verbose; tx create's recovery notes quote it briefly", async () => {
    const message = `the service failed: ${'x'.repeat(2 * 1024 * 1024)}`;
    const server = await scriptedServer([json(500, errorBody('INTERNAL_ERROR', message)), json(500, errorBody('INTERNAL_ERROR', message))]);
    closers.push(server.close);
    const cut = await timed(['tx', 'get', TX_ID, '--retries', '0'], server.baseUrl);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(new RegExp(`^error: INTERNAL_ERROR: the service failed: x{280}… \\(${message.length - 300} more characters; --verbose shows them\\)\n`));
    expect(cut.stderr.length).toBeLessThan(1000);
    const whole = await timed(['tx', 'get', TX_ID, '--retries', '0', '--verbose'], server.baseUrl);
    expect(whole.stderr).toContain(message);

    const answers = [json(500, errorBody('INTERNAL_ERROR', message)), json(404, errorBody('NOT_FOUND', 'no such reference')), json(500, errorBody('INTERNAL_ERROR', message)), json(404, errorBody('NOT_FOUND', 'no such reference'))];
    const createServer = await scriptedServer(answers);
    closers.push(createServer.close);
    const create = await timed([...createArgs, '--retries', '0'], createServer.baseUrl);
    expect(create.code, create.stderr.slice(0, 2000)).toBe(1);
    expect(create.stderr).toContain('error: NOT_CREATED: ');
    expect(create.stderr.length).toBeLessThan(3000);
    // Quoted once: the later steps, which got the same answer, say so instead of repeating it.
    expect(create.stderr.split('the service failed: x').length - 1, create.stderr).toBe(1);
    expect(create.stderr).toContain('(INTERNAL_ERROR: the same message as above)');
  });
});

describe('Retry-After capped at 60 s', () => {
  it('parseRetryAfter never gives more than 60 s, however it is written', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('86400', now)).toBe(60_000);
    expect(parseRetryAfter(String(2 ** 31), now)).toBe(60_000);
    expect(parseRetryAfter('9'.repeat(400), now)).toBe(60_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 01 Jan 2100 00:00:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  it('the client waits at most 60 s for a 429, whatever it asked', async () => {
    const server = await scriptedServer([json(429, errorBody('RATE_LIMITED', 'slow down'), { 'retry-after': '86400' }), json(429, errorBody('RATE_LIMITED', 'x'), { 'retry-after': String(2 ** 32) }), json(200, ok({ id: 'a' }))]);
    closers.push(server.close);
    const waits: number[] = [];
    const client = new HttpClient({ baseUrl: server.baseUrl, apiKey: KEY, userAgent: 't', timeoutMs: 5000, retries: 3, sleep: async (ms) => void waits.push(ms) });
    closers.push(() => client.close());
    await client.request({ method: 'GET', path: '/t', schema: z.looseObject({ id: z.string() }) });
    expect(waits).toEqual([60_000, 60_000]);
  });
});

describe('text that is not UTF-8', () => {
  /** The answer's JSON with the bytes `bad` (not UTF-8) wherever `@@` stands. */
  const withBadBytes = (body: unknown, bad = Buffer.from([0xc3, 0x28])) => {
    const parts = JSON.stringify(body).split('@@').map((p) => Buffer.from(p));
    return Buffer.concat(parts.flatMap((p, i) => (i === 0 ? [p] : [bad, p])));
  };
  const send = (bytes: Buffer) => (_req: unknown, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'application/json' }).end(bytes);

  it('is said once per answer on stderr, naming the field and the record; the data still flows (tx get, tx list)', async () => {
    const one = withBadBytes(ok(snapshot({ merchant_reference: 'order-@@' })));
    const second = { ...snapshot({ merchant_reference: 'fine' }), id: '11111111-2222-4333-8444-555555555555', terminal_id: 'till-@@', merchant_id: 'shop-@@' };
    const page = withBadBytes({ success: true, data: { data: [snapshot({}), second], has_more: false, limit: 20, next_cursor: null } });
    const server = await scriptedServer([send(one), send(page)]);
    closers.push(server.close);
    const get = await timed(['tx', 'get', TX_ID, '--json'], server.baseUrl);
    expect(get.code, get.stderr).toBe(0);
    expect(JSON.parse(get.stdout).merchant_reference).toBe('order-\uFFFD(');
    expect(get.stderr.trim().split('\n')).toEqual([
      `warning: GET /api/v1/partner/transactions/${TX_ID}: the answer was not valid UTF-8; U+FFFD (\uFFFD) stands for the bytes that could not be read in data.merchant_reference (record ${TX_ID})`,
    ]);
    const list = await timed(['tx', 'list', '--json'], server.baseUrl);
    expect(list.code, list.stderr).toBe(0);
    const warnings = list.stderr.trim().split('\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('data.data.1.merchant_id (record 11111111-2222-4333-8444-555555555555), data.data.1.terminal_id (record 11111111-2222-4333-8444-555555555555)');
  });

  it('in a revenue page: the CSV export says which row and field, and still writes the row', async () => {
    const row = ledgerRow(7, '2026-10-01T06:00:00.000Z', { merchant_reference: 'ref-@@' });
    const page = withBadBytes({ success: true, data: { data: [row], has_more: false, limit: 100, next_cursor: null } });
    const server = await scriptedServer([send(page)]);
    closers.push(server.close);
    const r = await timed(['revenue', 'export', '--from', '2026-10-01T00:00:00Z', '--to', '2026-10-01T12:00:00Z', '-o', 'csv'], server.baseUrl);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ref-\uFFFD(');
    expect(r.stderr).toContain(`warning: GET /api/v1/partner/revenue: the answer was not valid UTF-8; U+FFFD (\uFFFD) stands for the bytes that could not be read in data.data.0.merchant_reference (record ${row.transaction_id})`);
  });
});
