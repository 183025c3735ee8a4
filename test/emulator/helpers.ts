// Helpers for the emulator's HTTP-level tests: start it on a free loopback port, call it
// like a partner would, check every answer against the shared schemas (and, through
// `onAnswer`, against the OpenAPI document: ../helpers/openapi.ts), and receive its
// webhooks on a real node:http server.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, vi } from 'vitest';
import type * as z from 'zod/mini';
import { ErrorEnvelope, successWrapper } from '../../src/lib/schemas.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { holdDelivery, holdToDocument } from '../helpers/openapi.js';

export const KEY = 'sk_test_emulator';

export type Reply = { status: number; headers: Headers; text: string; body: any };

export type CallOptions = {
  key?: string | null;
  body?: unknown;
  /** Sent verbatim instead of JSON.stringify(body). */
  raw?: string;
  idempotencyKey?: string;
  headers?: Record<string, string>;
};

export type Api = {
  emu: RunningEmulator;
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  get(path: string, opts?: CallOptions): Promise<Reply>;
  post(path: string, body?: unknown, opts?: CallOptions): Promise<Reply>;
  close(): Promise<void>;
};

const running: RunningEmulator[] = [];

/** Starts an emulator; tests call `closeAll()` in afterEach/afterAll. */
export async function startApi(options: EmulatorOptions = {}): Promise<Api> {
  const emu = await startEmulator({ port: 0, webhookRetry: { maxAttempts: 3, baseDelayMs: 5 }, onAnswer: holdToDocument, ...options });
  running.push(emu);
  const call = async (method: string, path: string, opts: CallOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? KEY : opts.key;
    if (key !== null) headers['x-api-key'] = key;
    if (opts.idempotencyKey !== undefined) headers['idempotency-key'] = opts.idempotencyKey;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(emu.url + path, { method, headers, body });
    expect(res.headers.get('x-request-id'), `x-request-id on ${method} ${path}`).toMatch(/^req_[0-9a-f]+$/);
    return readReply(res);
  };
  return {
    emu,
    call,
    get: (path, opts) => call('GET', path, opts),
    post: (path, body, opts) => call('POST', path, { ...opts, body }),
    close: () => emu.close(),
  };
}

/** An answer with its body as text and, when it is JSON, parsed. */
export async function readReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

export async function closeAll(): Promise<void> {
  await Promise.all(running.splice(0).map((emu) => emu.close()));
}

/** Asserts a success answer whose `data` parses with `schema`; answers the data. */
export function expectOk<S extends z.core.$ZodType>(reply: Reply, status: number, schema: S): z.infer<S> {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  const parsed = successWrapper(schema).safeParse(reply.body);
  expect(parsed.success, `${reply.text}\n${parsed.error?.message ?? ''}`).toBe(true);
  return parsed.data!.data as z.infer<S>;
}

/** Asserts an error answer in the envelope, with its code and a message matching `message`. */
export function expectError(reply: Reply, status: number, code: string, message?: RegExp | string): string {
  expect(reply.status, reply.text).toBe(status);
  const parsed = ErrorEnvelope.safeParse(reply.body);
  expect(parsed.success, reply.text).toBe(true);
  const error = parsed.data!.error;
  expect(error.code).toBe(code);
  expect(Number.isNaN(Date.parse(error.timestamp))).toBe(false);
  if (message !== undefined) expect(error.message).toMatch(message);
  return error.message;
}

let refCounter = 0;
export function ref(prefix = 'ORDER'): string {
  refCounter++;
  return `${prefix}-${process.pid}-${refCounter}-${Math.random().toString(36).slice(2, 8)}`;
}

let keyCounter = 0;
export function idemKey(): string {
  keyCounter++;
  return `idem-${process.pid}-${keyCounter}-${Math.random().toString(36).slice(2, 10)}`;
}

export function directBody(overrides: Record<string, unknown> = {}) {
  return { fiat_amount: '150000.00', crypto_currency: 'usdt', network: 'bep20', merchant_reference: ref(), ...overrides };
}

/** Creates a transaction in direct mode and answers its create subset. */
export async function createTx(api: Api, overrides: Record<string, unknown> = {}, key?: string | null) {
  const reply = await api.post('/transactions', directBody(overrides), { idempotencyKey: idemKey(), key });
  expect(reply.status, reply.text).toBe(201);
  return reply.body.data as { id: string; merchant_reference: string; [k: string]: unknown };
}

export async function simulate(api: Api, transactionId: string, event: string, extra: Record<string, unknown> = {}) {
  return api.post('/sandbox/simulate', { transaction_id: transactionId, event, ...extra });
}

/** `vi.waitFor` with the emulator tests' patience: `check` until it stops throwing, rethrowing its last failure after `timeoutMs`. */
export function eventually<T>(check: () => T | Promise<T>, timeoutMs = 3000): Promise<T> {
  return vi.waitFor(check, { timeout: timeoutMs, interval: 5 });
}

export type Delivery = { headers: IncomingHttpHeaders; raw: string; body: any; answered: number; path: string };

/**
 * A webhook receiver on a free loopback port. `answer(n, delivery)` picks the status of the
 * n-th delivery (0-based); by default 200. A promise answers late: the delivery is listed
 * at once (its `answered` still 0), the answer sent when the promise settles.
 */
export async function webhookReceiver(answer: (n: number, delivery: Delivery) => number | Promise<number> = () => 200) {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const delivery: Delivery = { headers: req.headers, raw, body, answered: 0, path: req.url ?? '' };
      holdDelivery(req.headers, raw);
      const status = answer(deliveries.length, delivery);
      deliveries.push(delivery);
      const send = (code: number) => {
        delivery.answered = code;
        if (!res.destroyed) res.writeHead(code, { 'content-type': 'text/plain' }).end(code >= 300 ? 'receiver says no' : 'ok');
      };
      if (typeof status === 'number') send(status);
      else void status.then(send);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
