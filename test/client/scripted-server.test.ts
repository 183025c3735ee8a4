// The scripted test server itself: a request beyond the script is answered 599 and kept for
// the per-test check (test/setup-files/scripted-servers.ts), which fails the test it came in.
import { expect, it } from 'vitest';
import { json, scriptedServer, takeUnexpected } from '../helpers/server.js';

it('keeps every request nobody scripted for the per-test check, and only those', async () => {
  const s = await scriptedServer([json(200, { ok: true })]);
  try {
    expect((await fetch(`${s.baseUrl}/a`)).status).toBe(200);
    expect(takeUnexpected()).toEqual([]);
    expect((await fetch(`${s.baseUrl}/b?x=1`, { method: 'POST', body: '{}' })).status).toBe(599);
    // Taken here so that this test, which wanted it, passes; any other test would fail.
    expect(takeUnexpected()).toEqual(['POST /api/v1/partner/b?x=1 (request 2, 1 scripted)']);
    expect(takeUnexpected()).toEqual([]);
  } finally {
    await s.close();
  }
});
