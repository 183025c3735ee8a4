// Which signature scheme of the catalogue (src/lib/webhooks/signature.ts) a service signs
// with. The spec does not say, and conform cannot make the target deliver to it, so the
// scheme is read from deliveries a `webhooks listen --store` already received.
import { UsageError } from '../errors.js';
import { detect } from '../webhooks/signature.js';
import { readStoredEvents, type StoredEvent } from '../webhooks/store.js';
import type { SignatureObs } from './verdicts.js';

/** At most this many deliveries of a store are checked: the scheme does not change per event. */
const MAX_CHECKED = 100;

/**
 * The scheme each delivery of a `webhooks listen` store verifies under with `secret` (the
 * most specific one when several forms match); deliveries without a signature are not
 * counted. A UsageError when the store cannot be read or holds none.
 */
export async function storeSchemes(path: string, secret: string): Promise<SignatureObs> {
  const deliveries: StoredEvent[] = [];
  try {
    for await (const event of readStoredEvents(path)) {
      deliveries.push(event);
      if (deliveries.length >= MAX_CHECKED) break;
    }
  } catch (err) {
    throw new UsageError(`--store ${path}: ${(err as Error).message}`);
  }
  if (deliveries.length === 0) throw new UsageError(`--store ${path}: the store holds no deliveries`, 'run `offramp webhooks listen --store FILE` while the service delivers, then try again');
  const signed = deliveries.filter((d) => d.signature);
  const schemes: string[] = [];
  for (const d of signed) {
    // Judged at the time it was received, so an old store still verifies its timestamped
    // signatures; with no time on record the timestamp is not judged at all.
    const receivedAt = new Date(d.receivedAt);
    const opts = Number.isNaN(receivedAt.getTime()) ? { toleranceSec: Number.POSITIVE_INFINITY } : { now: receivedAt };
    const match = detect(d.body, d.signature, [{ label: 'webhook secret', secret }], opts)[0];
    if (match) schemes.push(match.scheme);
  }
  return { schemes, deliveries: signed.length };
}
