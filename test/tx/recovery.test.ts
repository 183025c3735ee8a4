// tx create and tx cancel when the service does not answer, in process (main → command
// → client) against a scripted node:http server: faults the emulator cannot produce on demand, in
// an exact order. `--retries 0` keeps each script to the requests that matter.
import { afterEach, describe, expect, it } from 'vitest';
import { drop, errorBody, json, scriptedServer, type Answer, type Recorded } from '../helpers/server.js';
import { KEY, ok, snapshot, summary, TX_ID } from './fixtures.js';
import { runMain } from '../helpers/main.js';

const servers: Awaited<ReturnType<typeof scriptedServer>>[] = [];
async function serve(answers: Answer[]) {
  const server = await scriptedServer(answers);
  servers.push(server);
  return server;
}
afterEach(async () => {
  for (const s of servers.splice(0)) {
    await s.close();
  }
});

const CREATE = ['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', 'order-1'];
const env = (baseUrl: string) => ({ OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: baseUrl });
const keyOf = (stderr: string) => /^idempotency-key: (\S+)$/m.exec(stderr)?.[1];
const summarize = (reqs: Recorded[]) => reqs.map((r) => `${r.method} ${r.url.replace('/api/v1/partner', '')}`);

describe('tx create: recovery when the create gets no answer', () => {
  it('a dropped create is found by reference: reported, "recovered" on stderr, exit 0, one POST', async () => {
    const found = snapshot();
    const server = await serve([drop, json(200, ok(found))]);
    const r = await runMain(['--retries', '0', ...CREATE, '--json'], { env: env(server.baseUrl) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(found);
    expect(r.stderr).toMatch(/recovered: .*0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91/);
    expect(summarize(server.requests)).toEqual(['POST /transactions', 'GET /transactions/reference/order-1']);
    const post = server.requests[0]!;
    expect(post.headers['idempotency-key']).toBe(keyOf(r.stderr));
    // The partner never sends rate or crypto_amount (the spec, create rule 2).
    expect(JSON.parse(post.body)).toEqual({ fiat_amount: '5000', crypto_currency: 'usdt', network: 'bep20', merchant_reference: 'order-1' });
  });

  it('not found by reference: the same create is sent again with the same key and body', async () => {
    const created = summary();
    const server = await serve([json(503, errorBody('SERVICE_UNAVAILABLE', 'down')), json(404, errorBody('NOT_FOUND', 'no such reference')), json(201, ok(created))]);
    const r = await runMain(['--retries', '0', ...CREATE, '--json'], { env: env(server.baseUrl) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(created);
    expect(summarize(server.requests)).toEqual(['POST /transactions', 'GET /transactions/reference/order-1', 'POST /transactions']);
    const [first, , second] = server.requests;
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(second!.body).toBe(first!.body);
  });

  it('a connection never made is not an unknown outcome: nothing was sent, one error, no recovery dance', async () => {
    const r = await runMain(['--retries', '1', ...CREATE], { env: env('http://127.0.0.1:9/api/v1/partner') });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n').filter((l) => !l.startsWith('idempotency-key: '));
    expect(lines[0]).toMatch(/^error: NOT_SENT: transaction "order-1" was not created: POST http:\/\/127\.0\.0\.1:9\/api\/v1\/partner\/transactions: connection refused \(ECONNREFUSED\); nothing was sent$/);
    expect(lines[1]).toMatch(/^hint: is the service/);
    expect(r.stderr).not.toMatch(/warning|looking up|OUTCOME_UNKNOWN/);
  });

  it('still unknown: exit 7 with the exact command, whose rerun sends the same key (and never the API key)', async () => {
    const fail = json(500, errorBody('INTERNAL_ERROR', 'boom'));
    const busy = json(503, errorBody('SERVICE_UNAVAILABLE', 'down'));
    const server = await serve([fail, busy, drop, busy]);
    const args = ['--retries', '0', '--verbose', ...CREATE, '--merchant-id', 'shop 7', '--idempotency-key', 'my-key-1'];
    const r = await runMain(args, { env: env(server.baseUrl) });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    const line = r.stderr.split('\n').find((l) => l.startsWith('error: OUTCOME_UNKNOWN: '));
    expect(line).toBeDefined();
    const command = /retry safely with: (offramp .*)$/.exec(line!)?.[1];
    expect(command).toBe(`offramp tx create --fiat-amount 5000 --token usdt --network bep20 --ref order-1 --merchant-id 'shop 7' --idempotency-key my-key-1`);
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(new Set(server.requests.filter((q) => q.method === 'POST').map((q) => q.headers['idempotency-key']))).toEqual(new Set(['my-key-1']));

    // The printed command, run as printed (unquoting the one quoted value), repeats the same create.
    const again = await serve([json(201, ok(summary({ merchant_id: 'shop 7' })))]);
    const argv = command!.replace("'shop 7'", 'SHOP7').split(' ').slice(1).map((a) => (a === 'SHOP7' ? 'shop 7' : a));
    const rerun = await runMain(['--retries', '0', ...argv], { env: env(again.baseUrl) });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(again.requests[0]!.headers['idempotency-key']).toBe('my-key-1');
    expect(again.requests[0]!.body).toBe(server.requests[0]!.body);
  });

  it('the retry command names --base-url without its credentials, and a key given as --api-key as one to add', async () => {
    const busy = json(503, errorBody('SERVICE_UNAVAILABLE', 'down'));
    const server = await serve([json(500, errorBody('INTERNAL_ERROR', 'boom')), busy, drop, busy]);
    const withCredentials = server.baseUrl.replace('http://', 'http://partner:url-password-1@');
    const r = await runMain(['--retries', '0', '--base-url', withCredentials, '--api-key', KEY, ...CREATE, '--idempotency-key', 'my-key-2'], { env: {} });
    expect(r.code, r.stderr).toBe(7);
    const command = /retry safely with: (offramp .*)$/m.exec(r.stderr)?.[1];
    expect(command).toBe(`offramp --base-url ${server.baseUrl} tx create --fiat-amount 5000 --token usdt --network bep20 --ref order-1 --idempotency-key my-key-2 (with your --api-key, as before)`);
    expect(r.stderr).not.toContain('url-password-1');
  });

  it('known not created (5xx, then the reference is absent): exit 1, says so, with the retry command', async () => {
    const fail = json(500, errorBody('INTERNAL_ERROR', 'boom'));
    const absent = json(404, errorBody('NOT_FOUND', 'no such reference'));
    const server = await serve([fail, absent, fail, absent]);
    const r = await runMain(['--retries', '0', ...CREATE], { env: env(server.baseUrl) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: NOT_CREATED: transaction "order-1" was not created .*retry safely with: offramp tx create .* --idempotency-key \S+/);
  });

  it('a reference that belongs to a different transaction is not reported as this create', async () => {
    const server = await serve([drop, json(200, ok(snapshot({ amount: '99.00' })))]);
    const r = await runMain(['--retries', '0', ...CREATE], { env: env(server.baseUrl) });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/already belongs to transaction .* does not match this request \(amount 99\.00 NGN, not 5000\); nothing new was created/);
    expect(r.stdout).toBe('');
  });

  it('the client retries a 503 with the same key; a 409 duplicate reference is exit 5 with a hint', async () => {
    const busy = json(503, errorBody('SERVICE_UNAVAILABLE', 'down'));
    const dup = json(409, errorBody('CONFLICT', `merchant_reference order-1 already exists (transaction ${TX_ID})`));
    const server = await serve([busy, busy, dup]);
    const r = await runMain(['--retries', '2', ...CREATE], { env: env(server.baseUrl) });
    expect(r.code).toBe(5);
    expect(new Set(server.requests.map((q) => q.headers['idempotency-key'])).size).toBe(1);
    expect(server.requests).toHaveLength(3);
    expect(r.stderr).toContain('error: CONFLICT: merchant_reference order-1 already exists');
    expect(r.stderr).toMatch(/hint: references are unique .*offramp tx get --ref order-1/);
  });
});

describe('tx cancel', () => {
  it('a 409 whose message lacks the status gets it added from a read; exit 5', async () => {
    const server = await serve([json(409, errorBody('CONFLICT', 'cannot cancel')), json(200, ok(snapshot({ status: 'completed' })))]);
    const r = await runMain(['tx', 'cancel', TX_ID], { env: env(server.baseUrl) });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('error: CONFLICT: cannot cancel (current status: completed)');
    expect(server.requests[0]!.headers['idempotency-key']).toBe(keyOf(r.stderr));
  });

  it('no answer: exit 7 with the command that retries the same cancellation', async () => {
    const server = await serve([drop]);
    const r = await runMain(['--retries', '0', 'tx', 'cancel', TX_ID, '--idempotency-key', 'cancel-key-1'], { env: env(server.baseUrl) });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`retry safely with: offramp tx cancel ${TX_ID} --idempotency-key cancel-key-1 --yes`);
  });

  it('the retry command names the same service as the cancel went to: --base-url without its credentials, a key given as --api-key as one to add', async () => {
    const server = await serve([drop]);
    const withCredentials = server.baseUrl.replace('http://', 'http://partner:url-password-1@');
    const r = await runMain(['--retries', '0', '--base-url', withCredentials, '--api-key', KEY, 'tx', 'cancel', TX_ID, '--idempotency-key', 'cancel-key-2', '--yes'], { env: {} });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`retry safely with: offramp --base-url ${server.baseUrl} tx cancel ${TX_ID} --idempotency-key cancel-key-2 --yes (with your --api-key, as before)`);
    expect(r.stderr).not.toContain('url-password-1');
    expect(r.stderr).not.toContain(KEY);
  });
});
