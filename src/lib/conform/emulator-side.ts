// The emulator side of `offramp conform`: a fresh emulator in this process, on a free
// loopback port, delivering its webhooks to a receiver of our own. The probes run against
// it exactly as against the target, so the report's EMULATOR column is what the emulator
// does today (docs/emulator.md), never a copy that could fall behind it.
//
// The receiver answers so that every delivery_status the emulator has shows up while the
// probes look: it refuses `transaction.created` (with one attempt per round the event is
// then `failed`), holds `payout.settled` open until the run ends (`pending`), and accepts
// the rest (`delivered`). It keeps each delivery's bytes and signature header, from which
// the emulator's signature scheme is detected as the target's is from a `--store`.
//
// The emulator itself is handed in by the command (`startEmulator` of src/emulator/index.ts):
// the library sits below the emulator and never loads it.
import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readPage } from '../client/paginate.js';
import { SIGNATURE_HEADER } from '../webhooks/signature.js';
import type { Sender } from './probes.js';

export type CapturedDelivery = { body: Buffer; signature: string | undefined; receivedAt: Date };

/** What the emulator side needs of `startEmulator` (offramp-cli/emulator). */
export type StartEmulator = (options: {
  port: number;
  apiKeys: string[];
  webhookUrl: string;
  webhookSecret: string;
  webhookRetry: { maxAttempts: number; baseDelayMs: number; timeoutMs: number };
}) => Promise<{ url: string; close(): Promise<void> }>;

export type EmulatorSide = {
  url: string;
  apiKey: string;
  webhookSecret: string;
  deliveries: CapturedDelivery[];
  /** Waits (at most a few seconds) until the walk's deliveries show all three delivery statuses. */
  settle(send: Sender['send']): Promise<void>;
  close(): Promise<void>;
};

const REFUSED_TYPE = 'transaction.created';
const HELD_TYPE = 'payout.settled';
const SETTLE_LIMIT_MS = 3000;
const SETTLE_POLL_MS = 20;

/** The partner key of the emulator side: any will do, the emulator is conform's alone. */
const API_KEY = 'sk_test_conform';

export async function startEmulatorSide(startEmulator: StartEmulator): Promise<EmulatorSide> {
  const deliveries: CapturedDelivery[] = [];
  const held: ServerResponse[] = [];
  let closing = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const header = req.headers[SIGNATURE_HEADER];
      deliveries.push({ body, signature: Array.isArray(header) ? header[0] : header, receivedAt: new Date() });
      const type = eventType(body);
      if (type === REFUSED_TYPE) res.writeHead(500, { 'content-type': 'text/plain' }).end('refused by offramp conform');
      else if (type === HELD_TYPE && !closing) held.push(res);
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const webhookSecret = `whsec_conform_${randomBytes(12).toString('hex')}`;
  let emu;
  try {
    emu = await startEmulator({
      port: 0,
      apiKeys: [API_KEY],
      webhookUrl: receiverUrl,
      webhookSecret,
      // One attempt per round: a refused delivery is `failed` at once. The held one must
      // not time out while the probes read the statuses.
      webhookRetry: { maxAttempts: 1, baseDelayMs: 5, timeoutMs: 15_000 },
    });
  } catch (err) {
    server.close();
    throw err;
  }
  const running = emu;

  const release = () => {
    for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  };

  return {
    url: running.url,
    apiKey: API_KEY,
    webhookSecret,
    deliveries,
    async settle(send) {
      const deadline = Date.now() + SETTLE_LIMIT_MS;
      while (Date.now() < deadline) {
        const a = await send({ method: 'GET', path: '/webhooks/events', query: { limit: 100 } });
        const items = (a.ok ? readPage(a.body)?.items : undefined) ?? [];
        const seen = new Set(items.map((e) => (e as { delivery_status?: unknown }).delivery_status));
        if (seen.has('pending') && seen.has('delivered') && seen.has('failed')) return;
        await new Promise((r) => setTimeout(r, SETTLE_POLL_MS));
      }
    },
    async close() {
      closing = true;
      release();
      await running.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function eventType(body: Buffer): string | undefined {
  try {
    const value = JSON.parse(body.toString('utf8')) as { type?: unknown };
    return typeof value.type === 'string' ? value.type : undefined;
  } catch {
    return undefined;
  }
}
