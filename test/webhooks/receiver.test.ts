// The listener core in process: signature, dedupe (also across a restart), durable store,
// forward-only statuses, forwarding.
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sign } from '../../src/lib/webhooks/signature.js';
import { startReceiver, type DeliveryInfo, type Receiver } from '../../src/lib/webhooks/receiver.js';
import { parseStoredLine } from '../../src/lib/webhooks/store.js';

const SECRET = 'whsec_receiver_test';
const TX = '0b6f6a4e-6d2b-4c57-9a57-2a3f1f0e9a91';

function event(id: string, type: string, txId = TX, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id, type, data: { id: txId, status: 'ignored-by-type', ...extra } });
}

async function post(url: string, body: string, signature: string | undefined = sign(body, SECRET), path = '') {
  const res = await fetch(url + path, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...(signature ? { 'X-SVC-Webhook-Signature': signature } : {}) },
  });
  return { status: res.status, body: await res.text() };
}

const opened: Receiver[] = [];
async function start(opts: Partial<Parameters<typeof startReceiver>[0]> = {}) {
  const events: DeliveryInfo[] = [];
  const r = await startReceiver({ secret: SECRET, onEvent: (e) => events.push(e), ...opts });
  opened.push(r);
  return { r, events };
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((r) => r.close()));
});

const tmp = () => join(mkdtempSync(join(tmpdir(), 'offramp-recv-')), 'events.ndjson');
const storedLines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);

describe('startReceiver', () => {
  it('accepts a signed event, stores the raw body with its signature as one line, and rejects a bad signature with 401', async () => {
    const store = tmp();
    const at = new Date('2026-11-23T10:00:00.000Z');
    const { r, events } = await start({ storePath: store, now: () => at });
    expect(r.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const good = event('evt-1', 'transaction.created');
    expect((await post(r.url, good, undefined, 'any/path')).status).toBe(200);
    expect(readFileSync(store, 'utf8')).toBe(
      `${JSON.stringify({ v: 2, id: 'evt-1', type: 'transaction.created', received_at: at.toISOString(), scheme: 'hmac-sha256-hex', signature: sign(good, SECRET), body: good })}\n`,
    );

    const forged = event('evt-2', 'deposit.detected');
    const bad = await post(r.url, forged, sign(forged, 'other-secret'));
    expect(bad.status).toBe(401);
    expect(bad.body).not.toContain(SECRET);
    expect((await post(r.url, forged, '')).status).toBe(401);
    // Uppercase hex is the same signature (the bytes are compared, in constant time).
    const upper = event('evt-3', 'deposit.detected');
    expect((await post(r.url, upper, sign(upper, SECRET).toUpperCase())).status).toBe(200);

    expect(storedLines(store).map((l) => JSON.parse(l).id)).toEqual(['evt-1', 'evt-3']);
    // The header is kept as received (upper case here), so the exact bytes can be re-checked.
    expect(parseStoredLine(storedLines(store)[1]!)).toMatchObject({ id: 'evt-3', signature: sign(upper, SECRET).toUpperCase(), scheme: 'hmac-sha256-hex' });
    expect(events.map((e) => [e.reception, e.id, e.verified, e.httpStatus, e.scheme])).toEqual([
      ['accepted', 'evt-1', true, 200, 'hmac-sha256-hex'],
      ['rejected', 'evt-2', false, 401, undefined],
      ['rejected', 'evt-2', false, 401, undefined],
      ['accepted', 'evt-3', true, 200, 'hmac-sha256-hex'],
    ]);
    expect(events[2]!.error).toMatch(/no x-svc-webhook-signature header/);
    expect(r.stats).toMatchObject({ received: 4, stored: 2, rejected: 2, badSignature: 2 });
    expect((await fetch(r.url)).status).toBe(405);
  });

  it('drops duplicates (also concurrent copies) and keeps the status moving forward only', async () => {
    const { r, events } = await start();
    const completed = event('e-done', 'transaction.completed');
    const detected = event('e-det', 'deposit.detected');
    expect((await post(r.url, event('e-new', 'transaction.created'))).status).toBe(200);
    expect((await post(r.url, completed)).status).toBe(200);
    expect(r.statuses()).toEqual([[TX, 'completed']]);
    // Late, older event: stored, but the status stays completed.
    await post(r.url, detected);
    expect(r.statuses()).toEqual([[TX, 'completed']]);
    const late = events.find((e) => e.id === 'e-det')!;
    expect(late).toMatchObject({ reception: 'accepted', outOfOrder: true, status: 'completed', eventStatus: 'deposit_confirming' });
    // payout.settled reports completed again: not out of order.
    await post(r.url, event('e-pay', 'payout.settled'));
    expect(events.at(-1)).toMatchObject({ outOfOrder: false, status: 'completed' });

    const copies = await Promise.all([1, 2, 3, 4].map(() => post(r.url, completed)));
    expect(copies.map((c) => c.status)).toEqual([200, 200, 200, 200]);
    expect(r.stats).toMatchObject({ stored: 4, duplicates: 4, outOfOrder: 1, transactions: 1 });
  });

  it('concurrent first copies of one id are stored once', async () => {
    const store = tmp();
    const { r } = await start({ storePath: store });
    const body = event('same', 'transaction.created');
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(r.url, body)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(storedLines(store)).toHaveLength(1);
    expect(r.stats).toMatchObject({ stored: 1, duplicates: 7 });
  });

  it('a delivery abandoned halfway through its body stores nothing and does not hold up close()', async () => {
    const store = tmp();
    const { r } = await start({ storePath: store });
    const body = event('abandoned', 'transaction.created');
    const socket = connect(r.port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-SVC-Webhook-Signature: ${sign(body, SECRET)}\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 20)}`);
    await vi.waitUntil(() => r.stats.received === 1);
    socket.destroy();
    await once(socket, 'close');
    // The next delivery goes through; close() returns (nothing is left in flight).
    expect((await post(r.url, event('next', 'transaction.created'))).status).toBe(200);
    await r.close();
    expect(storedLines(store).map((l) => parseStoredLine(l)!.id)).toEqual(['next']);
    expect(r.stats).toMatchObject({ received: 2, stored: 1 });
  });

  /** A raw connection to the receiver: what it answered, and a promise of its end. */
  async function rawConnection(r: Receiver) {
    const socket = connect(r.port, '127.0.0.1');
    await once(socket, 'connect');
    const got = { answer: '' };
    socket.setEncoding('utf8').on('data', (d: string) => (got.answer += d));
    // Writing on after the receiver hung up fails (EPIPE, ECONNRESET): that is the point.
    socket.on('error', () => undefined);
    return { socket, got, closed: new Promise((resolve) => socket.once('close', resolve)) };
  }

  it('a Content-Length over the cap is answered 413 at once, the body unread and the connection closed', async () => {
    const { r, events } = await start();
    const { socket, got, closed } = await rawConnection(r);
    socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${300 * 1024 * 1024}\r\n\r\n`);
    // A sender that drips its 300 MB: the answer must not wait for them.
    const drip = setInterval(() => socket.writable && socket.write('x'), 10);
    try {
      await closed;
    } finally {
      clearInterval(drip);
    }
    expect(got.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(got.answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(r.stats).toMatchObject({ received: 1, tooLarge: 1, rejected: 1 });
    expect(events).toMatchObject([{ reception: 'too_large', httpStatus: 413, error: `body over ${1024 * 1024} bytes` }]);
  });

  it('a chunked body is cut at the cap: 413 while the sender is still sending, the rest unread', async () => {
    const { r, events } = await start();
    const { socket, got, closed } = await rawConnection(r);
    socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    const size = 64 * 1024;
    const chunk = `${size.toString(16)}\r\n${'x'.repeat(size)}\r\n`;
    let sent = 0;
    // Sends until answered or cut off; a receiver that read it all would take 64 MiB and never answer.
    while (got.answer === '' && !socket.destroyed && sent < 64 * 1024 * 1024) {
      sent += size;
      if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
    }
    await closed;
    expect(got.answer).toMatch(/^HTTP\/1\.1 413 /);
    // The cap (1 MiB) and what the sockets' buffers held, not the 64 MiB on offer.
    expect(sent).toBeLessThan(16 * 1024 * 1024);
    expect(events).toMatchObject([{ reception: 'too_large', httpStatus: 413 }]);
    // The receiver goes on: the next delivery is taken.
    expect((await post(r.url, event('after', 'transaction.created'))).status).toBe(200);
  });

  it('after a restart, ids already in the store are duplicates and statuses are restored; a torn last line is set aside and cut', async () => {
    const store = tmp();
    const first = await start({ storePath: store });
    await post(first.r.url, event('a', 'transaction.created'));
    await post(first.r.url, event('b', 'deposit.detected'));
    await first.r.close();
    // A crash mid-write leaves half a line.
    appendFileSync(store, '{"id":"c","type":"deposit.confir');

    const second = await start({ storePath: store });
    expect(second.r.loaded).toMatchObject({ events: 2, unreadable: 0, tornBytes: 32, created: false });
    expect(readFileSync(second.r.loaded!.tornPath!, 'utf8')).toBe('{"id":"c","type":"deposit.confir');
    expect(second.r.statuses()).toEqual([[TX, 'deposit_confirming']]);
    expect((await post(second.r.url, event('a', 'transaction.created'))).status).toBe(200);
    expect(second.events[0]).toMatchObject({ reception: 'duplicate', duplicate: true });
    expect((await post(second.r.url, event('c', 'deposit.confirmed'))).status).toBe(200);
    expect(second.events[1]).toMatchObject({ reception: 'accepted', status: 'selling_crypto' });
    expect(storedLines(store).map((l) => JSON.parse(l).id)).toEqual(['a', 'b', 'c']);
  });

  it('answers 400 to a signed body that is not an event, and keeps a multi-line body exactly, on one line', async () => {
    const store = tmp();
    const { r } = await start({ storePath: store });
    expect((await post(r.url, '{"hello":1}')).status).toBe(400);
    const pretty = `${JSON.stringify({ id: 'p', type: 'transaction.created', data: { id: TX } }, null, 2)}\r\n`;
    expect((await post(r.url, pretty)).status).toBe(200);
    const lines = storedLines(store);
    expect(lines).toHaveLength(1);
    const stored = parseStoredLine(lines[0]!)!;
    expect(stored.body.toString('utf8')).toBe(pretty);
    expect(stored.signature).toBe(sign(pretty, SECRET));
    expect(r.stats).toMatchObject({ notEvent: 1, rejected: 1, stored: 1 });
  });

  it('keeps a body that is not valid UTF-8 byte for byte (base64 in the line)', async () => {
    const store = tmp();
    const { r } = await start({ storePath: store });
    // A Latin-1 "é" inside a string: JSON.parse reads it (as U+FFFD), but as text it would not round-trip.
    const raw = Buffer.concat([Buffer.from('{"id":"bin","type":"transaction.created","data":{"id":"'), Buffer.from([0xe9]), Buffer.from('"}}')]);
    const res = await fetch(r.url, { method: 'POST', body: raw, headers: { 'x-svc-webhook-signature': sign(raw, SECRET) } });
    expect(res.status).toBe(200);
    const line = storedLines(store)[0]!;
    expect(JSON.parse(line)).toHaveProperty('body_base64');
    expect(parseStoredLine(line)!.body.equals(raw)).toBe(true);
  });

  it('forwards verified events (and a later duplicate, once) with their headers and reports the app’s answer', async () => {
    const seen: { body: string; sig: string | undefined }[] = [];
    const app = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      seen.push({ body: Buffer.concat(chunks).toString(), sig: req.headers['x-svc-webhook-signature'] as string | undefined });
      res.writeHead(seen.length === 1 ? 200 : 503).end('busy');
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const results: { ok: boolean; status?: number; detail?: string }[] = [];
    const { r } = await start({ forward: { url: `http://127.0.0.1:${(app.address() as AddressInfo).port}/hook` }, onForward: (f) => results.push(f) });
    const body = event('f1', 'transaction.created');
    await post(r.url, body);
    // Once the app has taken it, a duplicate is relayed once (and not retried when refused).
    await expect.poll(() => results.length).toBe(1);
    await post(r.url, body);
    await expect.poll(() => results.length).toBe(2);
    await post(r.url, body, sign(body, 'wrong'));
    await r.close();
    app.close();
    expect(seen).toEqual([
      { body, sig: sign(body, SECRET) },
      { body, sig: sign(body, SECRET) },
    ]);
    expect(results.map((x) => [x.ok, x.status])).toEqual([
      [true, 200],
      [false, 503],
    ]);
    expect(r.stats).toMatchObject({ forwarded: 1, forwardFailures: 1, owed: 0 });
  });
});
