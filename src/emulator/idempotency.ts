// Idempotency-Key handling for POST /transactions and POST /transactions/{id}/cancel.
// Retention and bounds are "not shown" in the spec; the choices are in docs/emulator.md
// ("Idempotency"). Keys are scoped per route pattern so one key cannot mean two operations.
// Injected 500/503 faults happen before execution and store nothing; a dropped connection
// happens after, so its retry is a replay.
import { isDeepStrictEqual } from 'node:util';
import type { ApiResult } from './envelope.js';
import { badRequest, conflict } from './envelope.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * What a key was used for. `text` is the request as sent (the raw body, or `cancel <id>`);
 * when `structural`, two texts that differ still match if they are the same JSON. The
 * comparison only happens when a key comes back, so a first request pays nothing for it.
 */
export type RequestIdentity = { text: string; structural: boolean };

/** The answer is kept serialised: replays send the same bytes, and a string costs less memory than the object. */
export type IdempotencyEntry = {
  request: RequestIdentity;
  status: number;
  json: string;
  headers: Record<string, string> | undefined;
  storedMs: number;
  /** A successful create's transaction and its status then: the state file keeps this instead of `json` (state-codec.ts). */
  answerOf?: { tx: string; status: string };
};

export class IdempotencyCache {
  /** Insertion order is storage order, so expiry prunes from the front. */
  private readonly entries = new Map<string, IdempotencyEntry>();

  /** The stored answer for this key, or undefined when the request should execute. */
  lookup(route: string, key: string, request: RequestIdentity, now: number): ApiResult | undefined {
    this.prune(now);
    const entry = this.entries.get(entryId(route, key));
    if (!entry) return undefined;
    if (!sameRequest(entry.request, request)) {
      throw conflict(`Idempotency-Key ${key} was already used for a different request; use a new key for a new request`);
    }
    return { status: entry.status, json: entry.json, headers: { ...entry.headers, 'Idempotent-Replayed': 'true' } };
  }

  /** Stores the answer and hands it back serialised, so it is serialised once. */
  store(route: string, key: string, request: RequestIdentity, result: ApiResult, now: number, answerOf?: IdempotencyEntry['answerOf']): ApiResult {
    const json = result.json ?? JSON.stringify(result.body);
    this.entries.set(entryId(route, key), { request, status: result.status, json, headers: result.headers, storedMs: now, answerOf });
    return result.headers ? { status: result.status, json, headers: result.headers } : { status: result.status, json };
  }

  get size(): number {
    return this.entries.size;
  }

  get(id: string): IdempotencyEntry | undefined {
    return this.entries.get(id);
  }

  /** Every entry with its id, oldest first, for the state file. */
  all(): IterableIterator<[string, IdempotencyEntry]> {
    return this.entries.entries();
  }

  /** Puts back entries read from a state file (any order: they are sorted by age here). */
  restore(entries: [string, IdempotencyEntry][]): void {
    entries.sort((a, b) => a[1].storedMs - b[1].storedMs);
    for (const [id, entry] of entries) this.entries.set(id, entry);
  }

  prune(now: number): void {
    for (const [k, entry] of this.entries) {
      if (now - entry.storedMs <= RETENTION_MS) break;
      this.entries.delete(k);
    }
  }
}

/** How an entry is named (in the state file too): its route and key. */
export function entryId(route: string, key: string): string {
  return `${route}\u0000${key}`;
}

export function requireIdempotencyKey(value: string | undefined): string {
  if (value === undefined || value === '') {
    throw badRequest('Idempotency-Key header is required on this request (any unique string, e.g. a UUID; reuse it only to retry)');
  }
  if (value.length > 255 || !/^[\x21-\x7e]+$/.test(value)) {
    throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters');
  }
  return value;
}

function sameRequest(a: RequestIdentity, b: RequestIdentity): boolean {
  if (a.text === b.text) return true;
  if (!a.structural || !b.structural) return false;
  // Both texts passed validation as JSON objects when they were first seen; key order and whitespace do not count.
  return isDeepStrictEqual(JSON.parse(a.text), JSON.parse(b.text));
}
