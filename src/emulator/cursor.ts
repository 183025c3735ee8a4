// Opaque page cursors (partner-api.md: "opaque value taken from a previous next_cursor;
// never built by the caller"). A cursor is base64url JSON of the last returned item's sort
// key, tagged with the list it belongs to. Keying on the item rather than an offset keeps
// pages stable while records are inserted: new transactions sort before a "newest first"
// cursor, new ledger rows or events after an "oldest first" one, so nothing is skipped or
// repeated. A cursor from another list, or anything that does not decode, is a 400.
import { badRequest } from './envelope.js';

export type CursorKind = 'tx' | 'evt' | 'rev';

/** Per-list sort key: a creation sequence for transactions and events, (ts, id) for the ledger. */
export type CursorKey = { s: number } | { t: number; id: string };

export function encodeCursor(kind: CursorKind, key: CursorKey): string {
  return Buffer.from(JSON.stringify({ k: kind, ...key }), 'utf8').toString('base64url');
}

export function decodeSeqCursor(kind: 'tx' | 'evt', cursor: string): number {
  const value = decode(kind, cursor);
  if (typeof value.s !== 'number' || !Number.isSafeInteger(value.s) || value.s < 0) throw invalid();
  return value.s;
}

export function decodeLedgerCursor(cursor: string): { t: number; id: string } {
  const value = decode('rev', cursor);
  if (typeof value.t !== 'number' || !Number.isFinite(value.t) || typeof value.id !== 'string') throw invalid();
  return { t: value.t, id: value.id };
}

function decode(kind: CursorKind, cursor: string): Record<string, unknown> {
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) throw invalid();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof value !== 'object' || value === null || (value as { k?: unknown }).k !== kind) throw invalid();
  return value as Record<string, unknown>;
}

const invalid = () => badRequest('cursor is not valid: pass next_cursor from a previous page of this list unchanged');
