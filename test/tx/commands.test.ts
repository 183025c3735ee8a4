// Every transaction command against the emulator, in process (main → command → client →
// emulator on loopback): output, `--json` equal to the API's data, and the exit codes
// 2/3/4/5/7/8.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createManualClock } from '../../src/emulator/index.js';
import { emulatorFor } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { emulatorWithPartner, type partner } from './partner.js';

type Emu = Awaited<ReturnType<typeof emulatorFor>>;
let emu: Emu;
let api: ReturnType<typeof partner>;
beforeAll(async () => ({ emu, api } = await emulatorWithPartner()));
afterAll(() => emu.close());

const cli = (args: string[], env: Record<string, string> = {}) => runMain(args, { env: { ...emu.env, ...env } });

const pick = (obj: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, obj[k]]));

describe('transactions against the emulator', () => {
  it('quote → create from the quote → get by id and by ref → history → cancel; --json is the API data', async () => {
    const quote = await cli(['quote', '--token', 'usdt', '--network', 'bep20', '--crypto-amount', '100', '--json']);
    expect(quote.code, quote.stderr).toBe(0);
    const q = JSON.parse(quote.stdout);
    // The API's data, and the one figure the CLI computed, named as such (docs/transactions.md).
    expect(Object.keys(q).sort()).toEqual(['adjusted_rate', 'amount', 'base_rate', 'estimate', 'expires_at', 'quote_id']);
    expect(q.estimate).toEqual({ amount: '154225.00' });

    const created = await cli(['tx', 'create', '--quote', q.quote_id, '--ref', 'e2e-quote-1', '--merchant-id', 'm-1', '--terminal-id', 't-1', '--json']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toMatch(/^idempotency-key: [0-9a-f-]{36}$/m);
    const tx = JSON.parse(created.stdout);
    expect(tx).toMatchObject({ status: 'awaiting_deposit', merchant_reference: 'e2e-quote-1', merchant_id: 'm-1', terminal_id: 't-1', crypto_amount: '100.000000', rate: q.adjusted_rate });
    const stored = await api.get(`/transactions/${tx.id}`);
    expect(tx).toEqual(pick(stored, Object.keys(tx)));

    const byId = await cli(['tx', 'get', tx.id, '--json']);
    const byRef = await cli(['tx', 'get', '--ref', 'E2E-QUOTE-1', '--json']);
    expect(JSON.parse(byId.stdout)).toEqual(stored);
    expect(JSON.parse(byRef.stdout)).toEqual(stored);

    const table = await cli(['tx', 'get', tx.id]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^transaction\n {2}id +[0-9a-f-]{36}\n {2}status +awaiting_deposit/);
    for (const line of [/^deposit$/m, /^partner$/m, /^ {2}address +0x[0-9a-f]{40}$/m, /^ {2}deposit id +—$/m, /^ {2}deadline +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (UTC|[+-]\d\d:\d\d) \(in 30 min\)$/m, /^ {2}reference +e2e-quote-1$/m]) {
      expect(table.stdout).toMatch(line);
    }

    const cancelled = await cli(['tx', 'cancel', tx.id, '--json']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    const c = JSON.parse(cancelled.stdout);
    expect(c.status).toBe('cancelled');
    expect(c).toEqual(pick(await api.get(`/transactions/${tx.id}`), Object.keys(c)));

    const history = await cli(['tx', 'history', tx.id, '--json']);
    expect(JSON.parse(history.stdout)).toEqual(await api.get(`/transactions/${tx.id}/status-history`));
    const historyTable = await cli(['tx', 'history', tx.id]);
    expect(historyTable.stdout).toMatch(/^CHANGE +WHEN +REASON +METADATA\npending → awaiting_deposit +\S+Z +\S+ +\{.*\}\nawaiting_deposit → cancelled +\S+Z +\S+/);

    // What the user wanted holds: exit 0 with a notice, the transaction shown as it is.
    const again = await cli(['tx', 'cancel', tx.id]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`transaction ${tx.id} is already cancelled; nothing to do`);
    expect(again.stdout).toMatch(/^ {2}status +cancelled$/m);
    const againJson = await cli(['tx', 'cancel', tx.id, '--json']);
    expect(againJson.code).toBe(0);
    expect(JSON.parse(againJson.stdout)).toEqual(await api.get(`/transactions/${tx.id}`));
  });

  it('local times say their zone; a transaction no longer awaiting its deposit shows no countdown', async () => {
    vi.stubEnv('TZ', 'Africa/Lagos');
    try {
      const args = ['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', 'e2e-zone-1', '--json'];
      const tx = JSON.parse((await cli(args)).stdout) as { id: string; expires_at: string };
      const lagos = new Date(new Date(tx.expires_at).getTime() + 3_600_000).toISOString().replace('T', ' ').slice(0, 19);
      const open = await runMain(['tx', 'get', tx.id], { env: emu.env, columns: 100 });
      expect(open.stdout).toMatch(new RegExp(`^ {2}deadline +${lagos} \\+01:00 \\(in 30 min\\)$`, 'm'));
      const cancelled = await cli(['tx', 'cancel', tx.id]);
      expect(cancelled.code, cancelled.stderr).toBe(0);
      expect(cancelled.stdout).toMatch(new RegExp(`^ {2}deadline +${lagos} \\+01:00$`, 'm'));
      const got = await runMain(['tx', 'get', tx.id], { env: emu.env, columns: 100 });
      expect(got.stdout).toMatch(/^ {2}created +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+01:00 \(\d+ s ago\)$/m);
      expect(got.stdout).toMatch(/^ {2}deadline +\S+ \S+ \+01:00$/m);
      expect(got.stdout).not.toContain('(in 30 min)');
      const history = await runMain(['tx', 'history', tx.id], { env: emu.env, columns: 160 });
      expect(history.stdout).toMatch(/^awaiting_deposit → cancelled +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+01:00 \(/m);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('direct create shows the deposit; quote shows rates and time left; duplicates and the staging pair explain themselves', async () => {
    const quote = await cli(['quote', '--token', 'USDT', '--network', 'bep20', '--fiat-amount', '150000']);
    expect(quote.code).toBe(0);
    expect(quote.stdout).toMatch(/^base rate +\d+\.\d\d NGN per USDT$/m);
    expect(quote.stdout).toMatch(/^adjusted rate +\d+\.\d\d NGN per USDT$/m);
    expect(quote.stdout).toMatch(/^amount +150000\.00 NGN$/m);
    expect(quote.stdout).toMatch(/^expires +.* \(in 2 min\)$/m);

    const args = ['tx', 'create', '--fiat-amount', '150000', '--token', 'usdt', '--network', 'bep20', '--ref', 'e2e-direct-1'];
    const created = await cli(args);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^ {2}send +\d+\.\d+ USDT on bep20$/m);
    expect(created.stdout).toMatch(/^ {2}address +0x[0-9a-f]{40}$/m);
    expect(created.stdout).toMatch(/^ {2}amount +150000\.00 NGN$/m);
    expect(created.stdout).toMatch(/^ {2}deadline .*\(in 30 min\)$/m);

    const dup = await cli([...args.slice(0, -1), 'E2E-DIRECT-1']);
    expect(dup.code).toBe(5);
    expect(dup.stderr).toMatch(/^error: CONFLICT: .*already exists/m);
    expect(dup.stderr).toMatch(/^hint: references are unique .*offramp tx get --ref E2E-DIRECT-1$/m);

    const pair = await cli(['tx', 'create', '--fiat-amount', '1000', '--token', 'usdc', '--network', 'trc20', '--ref', 'e2e-pair', '--json']);
    expect(pair.code).toBe(2);
    // --json: the service's error envelope on stderr (after the key line), nothing on stdout.
    expect(pair.stdout).toBe('');
    expect(JSON.parse(pair.stderr.trim().split('\n').pop()!).error.code).toBe('BAD_REQUEST');
    const plain = await cli(['quote', '--token', 'usdc', '--network', 'trc20', '--fiat-amount', '1000']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/^hint: staging \(sandbox\) accepts only --token usdt --network bep20$/m);
  });

  it('list: a page (cursor on stderr), --all as one JSON array and as NDJSON', async () => {
    for (let i = 0; i < 4; i++) await api.create(`e2e-list-${i}`);
    const total = (await api.all()).length;
    expect(total).toBeGreaterThanOrEqual(5);

    const page = await cli(['tx', 'list', '--limit', '2', '--json']);
    expect(JSON.parse(page.stdout)).toEqual(await api.get('/transactions?limit=2'));
    const table = await cli(['tx', 'list', '--limit', '2']);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +STATUS +AMOUNT \(NGN\) +CRYPTO +CREATED +REFERENCE$/);
    expect(lines.slice(1)).toHaveLength(2);
    expect(lines[1]).toMatch(/^[0-9a-f-]{36} +awaiting_deposit +5000\.00 +\d+\.\d+ usdt +\S+Z +e2e-list-3$/);
    const next = /^more: offramp tx list --limit 2 --cursor (\S+) \(or --all\)$/m.exec(table.stderr)?.[1];
    expect(next).toBeDefined();
    const second = await cli(['tx', 'list', '--limit', '2', '--cursor', next!, '--json']);
    expect(JSON.parse(second.stdout).data[0].merchant_reference).toBe('e2e-list-1');

    const all = await cli(['tx', 'list', '--all', '--limit', '2', '--json']);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual({ data: await api.all(), has_more: false, limit: 2, next_cursor: null });
    const nd = await cli(['tx', 'list', '--all', '--limit', '3', '-o', 'ndjson']);
    const items = nd.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(items.map((t) => t.id)).toEqual((await api.all()).map((t) => t.id));
    expect(nd.stderr).toBe('');
  });

  it('exit codes: 3 bad key, 4 unknown id, 7 nobody listening, 8 watch ends elsewhere, 0 watch follows live changes', async () => {
    const badKey = await cli(['tx', 'list'], { OFFRAMP_API_KEY: 'sk_test_wrong_key_1' });
    expect(badKey.code).toBe(3);
    expect(badKey.stderr).not.toContain('sk_test_wrong_key_1');

    const missing = await cli(['tx', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^error: NOT_FOUND: /);

    const refused = await cli(['--retries', '0', 'tx', 'get', '--ref', 'x'], { OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner' });
    expect(refused.code).toBe(7);

    const ended = await api.create('e2e-watch-cancel');
    await cli(['tx', 'cancel', ended.id]);
    const eight = await cli(['tx', 'watch', ended.id, '--until', 'completed']);
    expect(eight.code).toBe(8);
    expect(eight.stderr).toMatch(/ended in cancelled, not completed/);

    const live = await api.create('e2e-watch-live');
    // The waits between polls are where the world moves on: an event in every other wait,
    // so some polls see no change and must print nothing.
    const events = ['deposit.detected', '', 'deposit.confirmed', '', 'transaction.completed'];
    const watched = await runMain(['tx', 'watch', '--ref', 'e2e-watch-live', '--interval', '100', '--until', 'completed'], {
      env: emu.env,
      sleep: async () => {
        if (events.length === 0) throw new Error('still watching after the last event');
        const event = events.shift();
        if (event) await api.simulate(live.id, event);
      },
    });
    expect(watched.code, watched.stderr).toBe(0);
    const lines = watched.stdout.trimEnd().split('\n');
    const statuses = lines.slice(0, -1).map((l) => l.split('  ')[1]!.split(' → ')[1]);
    expect(statuses).toEqual(['awaiting_deposit', 'deposit_confirming', 'selling_crypto', 'order_filled', 'completed']);
    expect(lines.at(-1)).toMatch(/^final status: completed/);
    expect(watched.stderr).toContain('reached completed');
  });
});

describe('quotes expire', () => {
  it('an expired quote is exit 2 with a hint to get a new one', async () => {
    const clock = createManualClock();
    const own = await emulatorFor({ clock });
    try {
      const env = { ...own.env };
      const q = JSON.parse((await runMain(['quote', '--token', 'usdt', '--network', 'bep20', '--fiat-amount', '5000', '--json'], { env })).stdout);
      clock.advance(121_000);
      const r = await runMain(['tx', 'create', '--quote', q.quote_id, '--network', 'bep20', '--ref', 'late-1'], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: BAD_REQUEST: .*expired/m);
      expect(r.stderr).toMatch(/^hint: quotes are valid 120 s: get a new one with `offramp quote/m);
    } finally {
      await own.close();
    }
  });
});
