// `offramp api`, the raw request command, in process (main → command → client) against a
// scripted server: authentication without the key in --verbose, --paginate, exit codes.
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/main.js';
import { errorBody, json, scriptedServer } from '../helpers/server.js';

describe('offramp api', () => {
  it('sends an authenticated request and prints the body; the key never shows in --verbose', async () => {
    const key = 'sk_test_api_cmd_5678';
    const server = await scriptedServer([json(200, { success: true, data: { id: 'x' } })]);
    const r = await runMain(['api', 'GET', '/transactions/x?expand=1', '--verbose', '--api-key', key, '--base-url', server.baseUrl]);
    await server.close();
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ success: true, data: { id: 'x' } });
    expect(server.requests[0]!.url).toBe('/api/v1/partner/transactions/x?expand=1');
    expect(server.requests[0]!.headers['x-api-key']).toBe(key);
    expect(r.stderr).toMatch(/> GET http/);
    expect(r.stderr).not.toContain(key);
  });

  it('--paginate follows cursors into one array', async () => {
    const server = await scriptedServer([
      json(200, { success: true, data: { data: [{ n: 1 }], has_more: true, limit: 1, next_cursor: 'c2' } }),
      json(200, { success: true, data: { data: [{ n: 2 }], has_more: false, limit: 1, next_cursor: null } }),
    ]);
    const r = await runMain(['api', 'GET', '/transactions', '--paginate'], { env: { OFFRAMP_API_KEY: 'sk_t_1234567', OFFRAMP_BASE_URL: server.baseUrl } });
    await server.close();
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ n: 1 }, { n: 2 }]);
    // Without a limit in the path it asks for full pages, so a full page without a cursor shows.
    expect(server.requests[1]!.url).toBe('/api/v1/partner/transactions?limit=100&cursor=c2');
  });

  it('--paginate finds the cursor beside data, percent-encodes it, and refuses a full page without one', async () => {
    const server = await scriptedServer([
      json(200, { success: true, data: [{ n: 1 }, { n: 2 }], has_more: true, next_cursor: 'a+b/c==' }),
      json(200, { success: true, data: [{ n: 3 }], meta: { has_more: false } }),
      json(200, { success: true, data: [{ n: 1 }, { n: 2 }] }),
    ]);
    const env = { OFFRAMP_API_KEY: 'sk_t_1234567', OFFRAMP_BASE_URL: server.baseUrl };
    const ok = await runMain(['api', 'GET', '/transactions?limit=2', '--paginate'], { env });
    const full = await runMain(['api', 'GET', '/transactions?limit=2', '--paginate'], { env });
    await server.close();
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(server.requests[1]!.url).toBe('/api/v1/partner/transactions?limit=2&cursor=a%2Bb%2Fc%3D%3D');
    expect(full.code).toBe(1);
    expect(full.stdout).toBe('');
    expect(full.stderr).toMatch(/^error: INCOMPLETE_LIST: GET \/transactions: a full page \(2 of limit 2\) came back with no cursor/);
  });

  it('maps API errors to exit codes; --json puts the envelope on stderr', async () => {
    const envelope = errorBody('NOT_FOUND', 'Transaction not found');
    const server = await scriptedServer([json(404, envelope), json(404, envelope)]);
    const env = { OFFRAMP_API_KEY: 'sk_t_1234567', OFFRAMP_BASE_URL: server.baseUrl };
    const plain = await runMain(['api', 'GET', '/transactions/nope'], { env });
    const asJson = await runMain(['api', 'GET', '/transactions/nope', '--json'], { env });
    await server.close();
    expect(plain.code).toBe(4);
    expect(plain.stderr).toBe('error: NOT_FOUND: Transaction not found\n');
    expect(asJson.code).toBe(4);
    expect(JSON.parse(asJson.stderr)).toEqual(envelope);
    expect(asJson.stdout).toBe('');
  });

  it('rejects bad JSON in --data before sending', async () => {
    const server = await scriptedServer([]);
    const r = await runMain(['api', 'POST', '/quotes', '--data', '{nope'], { env: { OFFRAMP_API_KEY: 'sk_t_1234567', OFFRAMP_BASE_URL: server.baseUrl } });
    await server.close();
    expect(r.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});
