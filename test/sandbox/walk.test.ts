// `offramp simulate walk` and `offramp simulate TX_ID EVENT` against the emulator, in
// process (main → command → client → emulator); the walk's spinners in a pseudo-terminal,
// through the built binary.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain, type MainResult } from '../helpers/main.js';
import { runInPty } from '../helpers/pty.js';
import { scriptedServer } from '../helpers/server.js';
import { breakingProxy } from './breaking-proxy.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => {
  emu = await emulatorFor();
});
afterAll(() => emu.close());

type Step = { step: string; status_before: string | null; status: string | null; at: string; ms: number; detail?: Record<string, string> };
type WalkJson = { transaction: { id: string; status: string; merchant_reference: string; deposit_status: string | null }; steps: Step[] };

/** A transaction awaiting its deposit, made straight through the API. */
async function freshTransaction(): Promise<string> {
  const res = await fetch(`${emu.emulator.url}/transactions`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ fiat_amount: '20000', crypto_currency: 'usdt', network: 'bep20', merchant_reference: `t-${randomUUID()}` }),
  });
  return ((await res.json()) as { data: { id: string } }).data.id;
}

const statuses = (steps: Step[]) => steps.map((s) => `${s.step}:${s.status}`);

describe('offramp simulate walk', () => {
  it('completed --settle: a new transaction, one line per step on stderr, the snapshot and history on stdout', async () => {
    const r = await runMain(['simulate', 'walk', '--settle'], { env: emu.env });
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^\[1\/6\] quote +50000 NGN at [\d.]+ NGN per usdt \(quote [0-9a-f-]{36}\)/);
    expect(lines[1]).toMatch(/^\[2\/6\] create +awaiting_deposit +tx [0-9a-f-]{36} +ref walk-\d{8}T\d{6}Z-[0-9a-f]{6} +\(Idempotency-Key [0-9a-f-]{36}\)/);
    expect(lines[2]).toMatch(/^\[3\/6\] deposit\.detected +awaiting_deposit → deposit_confirming +\d+ ms$/);
    expect(lines[3]).toMatch(/^\[4\/6\] deposit\.confirmed +deposit_confirming → selling_crypto/);
    expect(lines[4]).toMatch(/^\[5\/6\] transaction\.completed +selling_crypto → completed/);
    expect(lines[5]).toMatch(/^\[6\/6\] payout\.settled +completed \(unchanged\)/);
    expect(r.stdout).toMatch(/status +completed/);
    expect(r.stdout).toContain('status history');
    for (const reason of ['transaction:created', 'deposit:detected', 'deposit:confirmed', 'order:filled', 'order:settled']) expect(r.stdout).toContain(reason);
  });

  it('failed, refunded and expired, as JSON: the final snapshot and the steps, nothing else on stdout', async () => {
    const [failed, refunded, expired] = (await Promise.all(
      ['failed', 'refunded', 'expired'].map((outcome) => runMain(['simulate', 'walk', '--outcome', outcome, '--json'], { env: emu.env })),
    )) as [MainResult, MainResult, MainResult];
    for (const r of [failed, refunded, expired]) expect(r.code).toBe(0);
    const f = JSON.parse(failed.stdout) as WalkJson;
    expect(f.transaction.status).toBe('failed');
    expect(f.transaction.merchant_reference).toMatch(/^walk-/);
    expect(statuses(f.steps)).toEqual(['quote:null', 'create:awaiting_deposit', 'deposit.detected:deposit_confirming', 'deposit.confirmed:selling_crypto', 'transaction.failed:failed']);
    expect(f.steps[4]).toMatchObject({ status_before: 'selling_crypto', at: expect.stringMatching(/Z$/), ms: expect.any(Number) });

    const rf = JSON.parse(refunded.stdout) as WalkJson;
    expect(rf.transaction).toMatchObject({ status: 'refunded', deposit_status: 'refunded' });
    expect(statuses(rf.steps).slice(2)).toEqual(['deposit.detected:deposit_confirming', 'deposit.confirmed:selling_crypto', 'transaction.failed:failed', 'transaction.refunded:refunded']);

    const e = JSON.parse(expired.stdout) as WalkJson;
    expect(e.transaction.status).toBe('expired');
    expect(statuses(e.steps)).toEqual(['quote:null', 'create:awaiting_deposit', 'transaction.expired:expired']);

    // An existing transaction continues from where it is: the failed one can still be refunded.
    const more = await runMain(['simulate', 'walk', f.transaction.id, '--outcome', 'refunded', '--json'], { env: emu.env });
    expect(more.code).toBe(0);
    const m = JSON.parse(more.stdout) as WalkJson;
    expect(m.transaction).toMatchObject({ id: f.transaction.id, status: 'refunded' });
    expect(statuses(m.steps)).toEqual(['read:failed', 'transaction.refunded:refunded']);

    // ...but an expired one cannot be walked to completion: exit 5, saying why.
    const stuck = await runMain(['simulate', 'walk', e.transaction.id], { env: emu.env });
    expect(stuck.code).toBe(5);
    expect(stuck.stderr).toMatch(/error: CONFLICT: transaction .* is expired; it cannot be walked to completed from there/);
    expect(stuck.stderr).toMatch(/hint: no simulator event is valid from expired/);
  });

  it('stopped by an outage once its transaction exists: the hint is the exact command that continues it, which does', async () => {
    // Up until the walk's first event, down from then on, until the test brings it back.
    let phase: 'up' | 'down' | 'back' = 'up';
    const proxy = await breakingProxy(new URL(emu.emulator.url).origin, {
      answer: (req) => {
        if (phase === 'up' && req.path.endsWith('/sandbox/simulate')) phase = 'down';
        return phase === 'down' ? { status: 503, body: { success: false, error: { code: 'UNAVAILABLE', message: 'down for maintenance' } } } : undefined;
      },
    });
    try {
      const stopped = await runMain(['--base-url', proxy.baseUrl, 'simulate', 'walk', '--outcome', 'refunded', '--retries', '1'], { env: emu.env });
      expect(stopped.code).toBe(1);
      expect(stopped.stderr).toContain('error: SERVICE_UNAVAILABLE: POST /api/v1/partner/sandbox/simulate answered HTTP 503');
      const id = /tx ([0-9a-f-]{36})/.exec(stopped.stderr)![1]!;
      const hint = /^hint: continue it with: (.*)$/m.exec(stopped.stderr)?.[1];
      expect(hint).toBe(`offramp --base-url ${proxy.baseUrl} simulate walk ${id} --outcome refunded`);
      // The service is back: the command, run as printed, takes the transaction the rest of the way.
      phase = 'back';
      const go = await runMain([...hint!.split(' ').slice(1), '--json'], { env: { ...emu.env, OFFRAMP_BASE_URL: undefined } });
      expect(go.code, go.stderr).toBe(0);
      const walked = JSON.parse(go.stdout) as WalkJson;
      expect(walked.transaction).toMatchObject({ id, status: 'refunded' });
      expect(statuses(walked.steps)[0]).toBe('read:awaiting_deposit');
    } finally {
      await proxy.close();
    }
  });

  it('checks its flags before sending anything', async () => {
    const server = await scriptedServer([]);
    const env = { ...emu.env, OFFRAMP_BASE_URL: server.baseUrl };
    try {
      const settle = await runMain(['simulate', 'walk', '--outcome', 'failed', '--settle'], { env });
      expect(settle.code).toBe(2);
      expect(settle.stderr).toMatch(/--settle only applies to --outcome completed/);
      const badId = await runMain(['simulate', 'walk', 'not-a-uuid'], { env });
      expect(badId.code).toBe(2);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe('offramp simulate TX_ID EVENT', () => {
  it('sends one event and shows the snapshot; --json prints it as the service sent it', async () => {
    const id = await freshTransaction();
    const r = await runMain(['simulate', id, 'deposit.detected', '--deposit-id', 'dep_fixed_42', '--hash', '0xabc'], { env: emu.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/status +deposit_confirming/);
    expect(r.stdout).toMatch(/deposit id +dep_fixed_42/);
    const j = await runMain(['simulate', id, 'deposit.confirmed', '--json'], { env: emu.env });
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ id, status: 'selling_crypto', deposit_id: 'dep_fixed_42', deposit_status: 'confirmed' });
    expect(j.stderr).toBe('');

    // A step that is not valid now: 409 → exit 5 with the current status and what is valid.
    const bad = await runMain(['simulate', id, 'deposit.detected'], { env: emu.env });
    expect(bad.code).toBe(5);
    expect(bad.stderr).toMatch(/^error: CONFLICT: transaction [0-9a-f-]{36} is selling_crypto; the service refused deposit\.detected: /m);
    expect(bad.stderr).toMatch(/^hint: events valid from selling_crypto: transaction\.completed, transaction\.failed$/m);
    // With --json, the service's envelope.
    const badJson = await runMain(['simulate', id, 'deposit.detected', '--json'], { env: emu.env });
    expect(badJson.code).toBe(5);
    expect(JSON.parse(badJson.stderr)).toMatchObject({ error: { code: 'CONFLICT' } });
  });

  it('refuses an unknown or missing event before any request, listing the seven', async () => {
    const server = await scriptedServer([]);
    const env = { ...emu.env, OFFRAMP_BASE_URL: server.baseUrl };
    try {
      const id = randomUUID();
      const unknown = await runMain(['simulate', id, 'deposit.detectd'], { env });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('error: USAGE: unknown simulator event "deposit.detectd"');
      expect(unknown.stderr).toContain(
        'hint: events: deposit.detected, deposit.confirmed, transaction.completed, transaction.failed, transaction.expired, transaction.refunded, payout.settled',
      );
      const missing = await runMain(['simulate', id], { env });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/missing EVENT[\s\S]*payout\.settled/);
      const noId = await runMain(['simulate'], { env });
      expect(noId.code).toBe(2);
      expect(noId.stderr).toMatch(/TX_ID/);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('an unknown transaction is a 404 (exit 4)', async () => {
    const r = await runMain(['simulate', randomUUID(), 'deposit.detected'], { env: emu.env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/error: NOT_FOUND: /);
  });
});

describe('offramp simulate walk on a terminal', () => {
  it('turns a spinner per step into its line (✔), in order, and ends 0', async () => {
    const s = runInPty(['simulate', 'walk', '--settle'], emu.env);
    const r = await s.done;
    expect(r.code).toBe(0);
    const marks = [...r.output.matchAll(/✔ \[(\d)\/6\] (\S+)/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(marks).toEqual(['1 quote', '2 create', '3 deposit.detected', '4 deposit.confirmed', '5 transaction.completed', '6 payout.settled']);
    // While a step runs, its spinner shows it with an ellipsis.
    expect(r.output).toMatch(/\[3\/6\] deposit\.detected …/);
  });
});
