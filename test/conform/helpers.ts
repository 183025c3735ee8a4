// What the conform end-to-end tests share: the report's shape, a store filled by a listener
// (webhooks listen, in process), and the partner's own POSTs that make deliveries happen.
import { readFileSync } from 'node:fs';
import { vi } from 'vitest';
import { listenInProcess } from '../helpers/listener.js';

export type Finding = { point: string; emulator: string; observed: string; verdict: string; action?: string };
export type Report = { target: string; env: string; findings: Finding[]; saved?: { profile: string; service: unknown } };

/** `offramp webhooks listen --store FILE` in process; `stop` (Ctrl-C) resolves with its exit code. */
export function listen(store: string, secret: string) {
  const listener = listenInProcess(['--store', store], { OFFRAMP_WEBHOOK_SECRET: secret });
  return { url: listener.url, stop: async () => (await listener.stop()).code };
}

export function storedLines(path: string, n: number): Promise<string[]> {
  return vi.waitFor(
    () => {
      const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
      if (lines.length < n) throw new Error(`the store did not reach ${n} lines`);
      return lines;
    },
    { timeout: 5_000, interval: 25 },
  );
}

export async function post(base: string, key: string, path: string, body: unknown, idempotencyKey?: string) {
  const headers: Record<string, string> = { 'x-api-key': key, 'content-type': 'application/json' };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const res = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = (await res.json()) as { data: { id: string } };
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}
