// What `webhooks listen --forward-to` relays, and where: only the headers the app needs to
// verify and deduplicate an event (an allow-list, docs/webhooks.md "The request") with a
// user-agent naming the tool, and plain http only to this machine unless the user says so.
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../src/lib/webhooks/signature.js';
import { killListeners, listenInProcess } from '../helpers/listener.js';
import { runMain } from '../helpers/main.js';

const SECRET = 'whsec_allowlist_51c3';
const env = { OFFRAMP_WEBHOOK_SECRET: SECRET };
afterEach(() => killListeners());
const tmpStore = () => join(mkdtempSync(join(tmpdir(), 'offramp-allowlist-')), 'events.ndjson');

describe('the headers relayed to the app', () => {
  it('are the body, signature, id, timestamp and content-type, with our user-agent; nothing else', async () => {
    const seen: { headers: IncomingHttpHeaders; body: string }[] = [];
    const app = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(200).end();
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    try {
      const listener = listenInProcess(['--store', tmpStore(), '--forward-to', `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`], env);
      const url = await listener.url;
      const body = JSON.stringify({ id: '5d0e0000-0000-4000-8000-0000000000a1', type: 'deposit.detected', data: { id: 'tx-allow' } });
      const signature = sign(body, SECRET);
      const res = await fetch(url, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'x-svc-webhook-signature': signature,
          'x-svc-webhook-id': '5d0e0000-0000-4000-8000-0000000000a1',
          'x-svc-webhook-timestamp': '1790000000',
          authorization: 'Bearer someone-elses-token',
          cookie: 'session=abc',
          'x-forwarded-for': '203.0.113.9',
          'user-agent': 'the-service/1.0',
          'x-debug': 'leak',
        },
      });
      expect(res.status).toBe(200);
      await listener.lines(2);
      await listener.stop();
      expect(seen).toHaveLength(1);
      expect(seen[0]!.body).toBe(body);
      const { host, connection, 'content-length': _length, ...relayed } = seen[0]!.headers;
      expect(relayed).toEqual({
        'content-type': 'application/json',
        'x-svc-webhook-signature': signature,
        'x-svc-webhook-id': '5d0e0000-0000-4000-8000-0000000000a1',
        'x-svc-webhook-timestamp': '1790000000',
        'user-agent': expect.stringMatching(/^offramp-cli\/\S+ \(webhooks listen\)$/),
      });
    } finally {
      await new Promise((r) => app.close(r));
    }
  });
});

describe('where events may go', () => {
  it('plain http to another machine is refused (exit 2) without --allow-insecure-forward', async () => {
    const r = await runMain(['webhooks', 'listen', '--port', '0', '--forward-to', 'http://app.example.com/hooks'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--forward-to http://app.example.com/hooks is plain http to another machine: the events would cross the network in clear');
    expect(r.stderr).toContain('--allow-insecure-forward');
  });

  it('https to any host, loopback http, and http with --allow-insecure-forward start', async () => {
    for (const args of [['--forward-to', 'https://app.example.com/hooks'], ['--forward-to', 'http://localhost:3000/hooks'], ['--forward-to', 'http://10.0.0.7/hooks', '--allow-insecure-forward']]) {
      const listener = listenInProcess(['--store', tmpStore(), ...args], env);
      await listener.url;
      expect((await listener.stop()).code, args.join(' ')).toBe(130);
    }
  });
});
