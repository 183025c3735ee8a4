// The forwarder's retry schedule as docs/webhooks.md gives it to app authors, scaled down
// by the base: an owed event the app refuses comes back after twice the base, doubling up
// to the cap, each delay between 75% and 100% of that; a 2xx ends it.
import { afterEach, describe, expect, it } from 'vitest';
import { Forwarder, type ForwardResult } from '../../src/lib/webhooks/forwarder.js';
import { json, scriptedServer } from '../helpers/server.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('an owed event the app refuses', () => {
  it('is retried after 2×base, doubling up to the cap, 75–100% of each, until the app takes it', async () => {
    const refuse = json(503, { busy: true });
    const app = await scriptedServer([refuse, refuse, refuse, refuse, json(202, {})]);
    closers.push(app.close);
    const results: ForwardResult[] = [];
    let taken!: () => void;
    const done = new Promise<void>((resolve) => (taken = resolve));
    const forwarder = new Forwarder({
      url: `${app.baseUrl}/hooks`,
      retryBaseMs: 20,
      retryMaxMs: 100,
      onResult: (r) => results.push(r),
      onTaken: () => taken(),
    });
    closers.push(() => forwarder.close());
    forwarder.send({ id: 'evt-1', type: 'transaction.created', body: Buffer.from('{"id":"evt-1"}'), headers: { 'content-type': 'application/json' }, owed: true });
    await done;

    expect(results.map((r) => [r.attempt, r.status, r.ok])).toEqual([
      [1, 503, false],
      [2, 503, false],
      [3, 503, false],
      [4, 503, false],
      [5, 202, true],
    ]);
    const ceilings = [40, 80, 100, 100];
    results.slice(0, 4).forEach((r, i) => {
      expect(r.retryInMs).toBeGreaterThanOrEqual(ceilings[i]! * 0.75);
      expect(r.retryInMs).toBeLessThanOrEqual(ceilings[i]!);
    });
    expect(results[4]!.retryInMs).toBeUndefined();
    // Each try came no sooner than the delay it was given.
    for (let i = 1; i < 5; i++) expect(app.requests[i]!.at - app.requests[i - 1]!.at).toBeGreaterThanOrEqual(results[i - 1]!.retryInMs! - 5);
  });
});
