// `webhooks listen --forward-to`: each forward attempt is held to its limit as one
// deadline (connecting, interim answers, headers, body), and what is read of the app's
// answer is capped, whatever the app does: drip its answer, send `102 Processing`
// forever, or answer non-2xx with a body that never ends (the listener's peak memory,
// measured on the built binary, stays bounded while the service is still answered at once).
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../src/lib/webhooks/signature.js';
import { Forwarder, type ForwardResult } from '../../src/lib/webhooks/forwarder.js';
import { endlessBody, onRequests, rawServer, spawnMeasured } from '../helpers/faulty.js';
import { scriptedServer } from '../helpers/server.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The first result of forwarding one event to `url` with a `timeoutMs` limit, and how long it took. */
async function firstResult(url: string, timeoutMs: number) {
  let resolve!: (r: ForwardResult) => void;
  const result = new Promise<ForwardResult>((r) => (resolve = r));
  const forwarder = new Forwarder({ url, timeoutMs, retryBaseMs: 60_000, onResult: resolve, onTaken: () => undefined });
  closers.push(() => forwarder.close());
  const started = Date.now();
  forwarder.send({ id: 'evt-1', type: 'transaction.created', body: Buffer.from('{"id":"evt-1"}'), headers: { 'content-type': 'application/json' }, owed: true });
  const r = await result;
  return { ...r, took: Date.now() - started };
}

describe('a forward attempt is one deadline', () => {
  it('an app that drips its answer, or sends 102 Processing forever: the attempt ends at its limit, still owed', async () => {
    const drip = await rawServer((socket) =>
      onRequests(socket, () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100000\r\n\r\n');
        const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write('.')), 50);
      }),
    );
    const processing = await rawServer((socket) =>
      onRequests(socket, () => {
        const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write('HTTP/1.1 102 Processing\r\n\r\n')), 50);
      }),
    );
    closers.push(drip.close, processing.close);
    for (const app of [drip, processing]) {
      const r = await firstResult(`${app.url}/hooks`, 800);
      expect(r).toMatchObject({ ok: false, detail: 'no answer within 800 ms', retryInMs: expect.any(Number) });
      expect(r.took).toBeLessThan(800 + 5000);
    }
  });

  it("a non-2xx answer whose body never ends: read up to the cap, its first characters shown", async () => {
    const app = await scriptedServer([endlessBody(503)]);
    closers.push(app.close);
    const r = await firstResult(app.baseUrl, 10_000);
    expect(r).toMatchObject({ ok: false, status: 503, detail: 'b'.repeat(120) });
    expect(r.took).toBeLessThan(10_000);
  });
});

describe('the built listener against an app with an endless non-2xx body', () => {
  it('answers the service at once and stays well under 300 MB while the app is retried', async () => {
    const app = await scriptedServer(Array.from({ length: 50 }, () => endlessBody(500)));
    closers.push(app.close);
    const secret = 'whsec_bounds_1';
    const listener = spawnMeasured(['webhooks', 'listen', '--port', '0', '--forward-to', `${app.baseUrl}/hooks`], { OFFRAMP_WEBHOOK_SECRET: secret, OFFRAMP_RETRY_BASE_MS: '50' });
    closers.push(async () => void listener.child.kill('SIGKILL'));
    await expect.poll(() => /Listening for webhooks on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(listener.stderr())?.[1], { timeout: 15_000 }).toBeDefined();
    const url = /Listening for webhooks on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(listener.stderr())![1]!;
    const body = JSON.stringify({ id: 'evt-endless', type: 'transaction.created', data: { id: 'tx-1' } });
    const started = Date.now();
    const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-webhook-signature': sign(body, secret) } });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    // Three attempts, each reading its 8 MiB and stopping.
    await expect.poll(() => (listener.stdout().match(/→ evt-endless {2}500 /g) ?? []).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    listener.child.kill('SIGINT');
    const done = await listener.done;
    expect(done.code).toBe(130);
    expect(done.peakMiB).toBeLessThan(300);
  });
});
