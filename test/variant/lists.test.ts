// Lists, filters, replay and exports through `main` in process, against the emulator
// and against the variant server (test/helpers/variant-server.ts), which keeps the spec's
// rules but chose differently on every open point: other list shapes, cursors with `+/=`,
// filter names the CLI does not send, other status words, 200 on create. Every command
// must give the same right answer against both, or fail loudly; none may exit 0 with a
// wrong or partial result.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { tempHome } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { startVariant, VARIANT, type RunningVariant, type VariantShape } from '../helpers/variant-server.js';

type Target = { name: string; baseUrl: string; key: string; variant?: RunningVariant; emu: RunningEmulator; close(): Promise<void> };

const TX_COUNT = 47;
/** The seeded ledger spans the last 180 days: two legal slices cover it. */
const SEED_FROM = new Date(Date.now() - 182 * 86_400_000).toISOString().slice(0, 10);
const SEED_TO = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
const CANCELLED = 3;

async function call(t: Target, method: string, path: string, body?: unknown, idem?: string) {
  const headers: Record<string, string> = { 'x-api-key': t.key };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idem) headers['idempotency-key'] = idem;
  const res = await fetch(t.baseUrl + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const json = (await res.json()) as { data?: any };
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** 47 transactions, 3 of them cancelled, 1 walked to completed; webhooks fail (no endpoint). */
async function populate(t: Target): Promise<{ ids: string[]; cancelled: string[]; completed: string }> {
  const ids: string[] = [];
  for (let i = 0; i < TX_COUNT; i++) {
    const tx = await call(t, 'POST', '/transactions', { fiat_amount: '5000.00', crypto_currency: 'usdt', network: 'bep20', merchant_reference: `${t.name}-${i}` }, `k-${t.name}-${i}`);
    ids.push(tx.id);
  }
  const cancelled = ids.slice(5, 5 + CANCELLED);
  for (const id of cancelled) await call(t, 'POST', `/transactions/${id}/cancel`, undefined, `c-${id}`);
  const completed = ids[10]!;
  for (const event of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) await call(t, 'POST', '/sandbox/simulate', { transaction_id: completed, event });
  return { ids, cancelled, completed };
}

const SHAPES: VariantShape[] = ['beside', 'meta', 'pagination'];
const targets: Target[] = [];
/** The same servers in production mode: their seeded ledger holds every pair, not only the sandbox's. */
const ledgers: Target[] = [];
const facts = new Map<string, Awaited<ReturnType<typeof populate>>>();

beforeAll(async () => {
  for (const mode of ['staging', 'production'] as const) {
    const into = mode === 'staging' ? targets : ledgers;
    const seedRevenue = mode === 'staging' ? 0 : 300;
    const emu = await startEmulator({ port: 0, apiKeys: ['sk_test_lists'], mode, seedRevenue, webhookRetry: { maxAttempts: 1, baseDelayMs: 5 } });
    into.push({ name: 'emulator', baseUrl: emu.url, key: 'sk_test_lists', emu, close: () => emu.close() });
    for (const shape of SHAPES) {
      const variant = await startVariant({ shape, seedRevenue, emulator: { mode, webhookRetry: { maxAttempts: 1, baseDelayMs: 5 } } });
      into.push({ name: `variant-${shape}`, baseUrl: variant.baseUrl, key: variant.apiKey, variant, emu: variant.emu, close: () => variant.close() });
    }
  }
  for (const t of targets) facts.set(t.name, await populate(t));
}, 60_000);

afterAll(async () => {
  for (const t of [...targets, ...ledgers]) await t.close();
});

const env = (t: Target, extra: Record<string, string> = {}) => ({ OFFRAMP_API_KEY: t.key, OFFRAMP_BASE_URL: t.baseUrl, ...extra });
const byName = (name: string) => targets.find((t) => t.name === name)!;
const ledgerOf = (name: string) => ledgers.find((t) => t.name === name)!;
const each = () => ['emulator', ...SHAPES.map((s) => `variant-${s}`)].map((name) => [name]);

describe.each(each())('lists against %s', (name) => {
  it('tx list --all walks every page to the end', async () => {
    const t = byName(name);
    const r = await runMain(['tx', 'list', '--all', '--limit', '7', '--json'], { env: env(t) });
    expect(r.code, r.stderr).toBe(0);
    const ids = (JSON.parse(r.stdout) as { data: { id: string }[] }).data.map((tx) => tx.id);
    expect(ids).toHaveLength(TX_COUNT);
    expect(new Set(ids)).toEqual(new Set(facts.get(name)!.ids));
  });

  it('--json is one page object with and without --all: .data[].id reads both alike', async () => {
    const t = byName(name);
    const keys = ['data', 'has_more', 'limit', 'next_cursor'];
    for (const list of [['tx', 'list'], ['webhooks', 'list']]) {
      const one = await runMain([...list, '--limit', '100', '--json'], { env: env(t) });
      const all = await runMain([...list, '--all', '--limit', '7', '--json'], { env: env(t) });
      for (const r of [one, all]) {
        expect(r.code, r.stderr).toBe(0);
        expect(Object.keys(JSON.parse(r.stdout) as object).sort()).toEqual(keys);
      }
      expect(JSON.parse(all.stdout)).toMatchObject({ has_more: false, limit: 7, next_cursor: null });
      const ids = async (...more: string[]) => (await runMain([...list, ...more, '--jq', '.data[] | (.id // .event_id)'], { env: env(t) })).stdout.split('\n').sort();
      const whole = await ids('--limit', '100');
      expect(whole.length).toBeGreaterThan(7);
      expect(await ids('--all', '--limit', '7')).toEqual(whole);
    }
  });

  it('one page prints the command for the next, filters kept; pasted into a shell, it continues where the page stopped', async () => {
    const t = byName(name);
    for (const [list, filter, id] of [[['tx', 'list'], [], 'id'], [['webhooks', 'list'], ['--type', 'transaction.created'], 'event_id']] as const) {
      const ids = (r: { stdout: string }) => r.stdout.trim().split('\n').map((l) => JSON.parse(l)[id] as string);
      const first = await runMain([...list, ...filter, '--limit', '30', '-o', 'ndjson'], { env: env(t) });
      expect(first.code, first.stderr).toBe(0);
      const more = /^more: (offramp .+) \(or --all\)$/m.exec(first.stderr);
      expect(more, first.stderr).not.toBeNull();
      // The words as a POSIX shell reads the printed line (a cursor may need its quotes).
      const words = execFileSync('sh', ['-c', `set -- ${more![1]}; printf '%s\\0' "$@"`]).toString().split('\0').slice(1, -1);
      expect(words).toEqual([...list, ...filter, '--limit', '30', '-o', 'ndjson', '--cursor', expect.any(String)]);
      const second = await runMain(words, { env: env(t) });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).not.toMatch(/^more:/m);
      const whole = await runMain([...list, ...filter, '--all', '-o', 'ndjson'], { env: env(t) });
      expect(new Set([...ids(first), ...ids(second)])).toEqual(new Set(ids(whole)));
      expect(ids(first).length + ids(second).length).toBe(ids(whole).length);
      expect(ids(whole).length).toBeGreaterThanOrEqual(TX_COUNT);
    }
  });

  it('the next-page line keeps --raw-cells and --json, and says to add a --jq expression again', async () => {
    const t = byName(name);
    for (const list of [['tx', 'list'], ['webhooks', 'list']]) {
      const csv = await runMain([...list, '--limit', '2', '-o', 'csv', '--raw-cells'], { env: env(t) });
      expect(csv.code, csv.stderr).toBe(0);
      expect(csv.stderr).toMatch(new RegExp(`^more: offramp ${list.join(' ')} --limit 2 --raw-cells -o csv --cursor \\S+ \\(or --all\\)$`, 'm'));
      const json = await runMain([...list, '--limit', '2', '--json'], { env: env(t) });
      expect(json.stderr).toMatch(new RegExp(`^more: offramp ${list.join(' ')} --limit 2 --json --cursor \\S+ \\(or --all\\)$`, 'm'));
      const jq = await runMain([...list, '--limit', '2', '--jq', '.data[0]'], { env: env(t) });
      expect(jq.stderr).toMatch(new RegExp(`^more: offramp ${list.join(' ')} --limit 2 --cursor \\S+ \\(with your --jq, as before\\) \\(or --all\\)$`, 'm'));
    }
  });

  it('tx list --status keeps only that status, and says when the service ignored the filter', async () => {
    const t = byName(name);
    const r = await runMain(['tx', 'list', '--status', 'cancelled', '--all', '--json'], { env: env(t) });
    expect(r.code, r.stderr).toBe(0);
    const listed = (JSON.parse(r.stdout) as { data: { id: string; status: string }[] }).data;
    expect(new Set(listed.map((tx) => tx.id))).toEqual(new Set(facts.get(name)!.cancelled));
    if (t.variant) expect(r.stderr).toBe('warning: the service ignored --status (sent as status=cancelled): it returned records that do not match, and they were left out here. `offramp conform --save` finds the name this service reads\n');
    else expect(r.stderr).toBe('');
  });

  it('tx list --from after every creation lists nothing (a window the service may ignore)', async () => {
    const t = byName(name);
    const r = await runMain(['tx', 'list', '--from', '2099-01-01', '--all', '--json'], { env: env(t) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ data: [], has_more: false, limit: 100, next_cursor: null });
  });

  it('webhooks list --tx lists only that transaction’s events', async () => {
    const t = byName(name);
    const { completed } = facts.get(name)!;
    const r = await runMain(['webhooks', 'list', '--tx', completed, '--all', '--json'], { env: env(t) });
    expect(r.code, r.stderr).toBe(0);
    const events = (JSON.parse(r.stdout) as { data: { aggregate_id: string; event_type: string }[] }).data;
    expect(events.map((e) => e.event_type).sort()).toEqual(['deposit.confirmed', 'deposit.detected', 'transaction.completed', 'transaction.created']);
    expect(new Set(events.map((e) => e.aggregate_id))).toEqual(new Set([completed]));
    if (t.variant) expect(r.stderr).toMatch(/^warning: the service ignored --tx \(sent as transaction_id=/);
  });

  it('revenue export --token/--network writes only that pair, and --summary neither falsely matches nor falsely fails', async () => {
    const t = ledgerOf(name);
    const all = await runMain(['revenue', 'export', '--from', SEED_FROM, '--to', SEED_TO, '-o', 'ndjson'], { env: env(t) });
    expect(all.code, all.stderr).toBe(0);
    const rows = all.stdout.trim().split('\n').map((l) => JSON.parse(l) as { crypto_currency: string; network: string; transaction_id: string });
    const want = rows.filter((row) => row.crypto_currency === 'usdt' && row.network === 'trc20');
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(rows.length);
    const r = await runMain(['revenue', 'export', '--from', SEED_FROM, '--to', SEED_TO, '--token', 'usdt', '--network', 'trc20', '-o', 'ndjson', '--summary'], { env: env(t) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l).transaction_id)).toEqual(want.map((row) => row.transaction_id));
    if (t.variant) expect(r.stderr).toMatch(/warning: the service ignored --token \(sent as crypto_currency=usdt\)/);
    expect(r.stderr).toMatch(/totals match the service/);
  });

  it('revenue summary --token sums that token’s rows', async () => {
    const t = ledgerOf(name);
    const rows = await runMain(['revenue', 'export', '--from', SEED_FROM, '--to', SEED_TO, '--token', 'usdc', '-o', 'ndjson'], { env: env(t) });
    const list = rows.stdout.trim().split('\n').map((l) => JSON.parse(l) as { share: string });
    const r = await runMain(['revenue', 'summary', '--from', SEED_FROM, '--to', SEED_TO, '--token', 'usdc', '--json'], { env: env(t) });
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { transaction_count: number; total_partner_share: string; crypto_currency: string };
    expect(summary.transaction_count).toBe(list.length);
    const cents = list.reduce((n, row) => n + BigInt(row.share.replace('.', '')), 0n);
    expect(summary.total_partner_share.replace('.', '')).toBe(String(cents));
    expect(summary.crypto_currency).toBe('usdc');
  });
});

describe('single reads and writes against the variant', () => {
  it('tx create (answered 200, not 201) and tx get keep extra fields and the service’s times verbatim', async () => {
    const t = byName('variant-beside');
    const created = await runMain(['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', 'variant-create-1', '--json'], { env: env(t) });
    expect(created.code, created.stderr).toBe(0);
    const tx = JSON.parse(created.stdout) as { id: string; risk_score?: string; expires_at: string };
    expect(tx.risk_score).toBe('0.12');
    expect(tx.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    const got = await runMain(['tx', 'get', tx.id, '--json'], { env: env(t) });
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ id: tx.id, risk_score: '0.12' });
  });

  it('a gateway’s HTML 502 is retried like any 5xx', async () => {
    const t = byName('variant-beside');
    t.variant!.failNext(2, 'html502');
    const r = await runMain(['tx', 'get', facts.get('variant-beside')!.ids[0]!, '--json'], { env: env(t) });
    expect(r.code, r.stderr).toBe(0);
    // Two tries (--retries 1) use up both: the command fails as a 5xx after retries does.
    t.variant!.failNext(2, 'html502');
    const gave = await runMain(['tx', 'get', facts.get('variant-beside')!.ids[0]!, '--retries', '1'], { env: env(t) });
    expect(gave.code).toBe(1);
    expect(gave.stderr).toMatch(/^error: \w+: GET \/api\/v1\/partner\/transactions\/[0-9a-f-]+ answered HTTP 502$/m);
  });

  it('api --paginate walks the variant’s lists too', async () => {
    const t = byName('variant-pagination');
    const r = await runMain(['api', 'GET', '/transactions?limit=9', '--paginate'], { env: env(t) });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(TX_COUNT);
  });
});

describe('webhooks replay --failed against the variant', () => {
  it('replays only the failed events of the transaction asked for, once told the failed word', async () => {
    const t = byName('variant-beside');
    const { completed } = facts.get('variant-beside')!;
    const before = t.variant!.requests.length;
    const unknown = await runMain(['webhooks', 'replay', '--failed', '--tx', completed, '--yes'], { env: env(t) });
    // No event says "failed"; the variant says "errored", which the CLI cannot take for failed by itself.
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: UNKNOWN_STATUS: cannot tell which events failed: none has delivery_status "failed", and the service also reports "errored"/m);
    expect(t.variant!.requests.slice(before).filter((q) => q.method === 'POST')).toEqual([]);

    const r = await runMain(['webhooks', 'replay', '--failed', '--failed-status', VARIANT.deliveryStatus.failed, '--tx', completed, '--yes', '--json'], { env: env(t) });
    expect(r.code, r.stderr).toBe(0);
    const replayed = JSON.parse(r.stdout) as { aggregate_id: string }[];
    expect(replayed).toHaveLength(4);
    expect(new Set(replayed.map((x) => x.aggregate_id))).toEqual(new Set([completed]));
    const posts = t.variant!.requests.slice(before).filter((q) => q.method === 'POST');
    expect(posts).toHaveLength(4);
    expect(posts.every((q) => q.path.endsWith('/replay'))).toBe(true);
  });

  it('against the emulator the default word is right', async () => {
    const t = byName('emulator');
    const { ids } = facts.get('emulator')!;
    const r = await runMain(['webhooks', 'replay', '--failed', '--tx', ids[0]!, '--yes', '--json'], { env: env(t) });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { aggregate_id: string }[]).map((x) => x.aggregate_id)).toEqual([ids[0]]);
  });
});

describe('filter names saved in the profile', () => {
  it('are sent under the service’s names: no warning, the same answer', async () => {
    const t = byName('variant-beside');
    const home = tempHome();
    const add = await runMain(['profile', 'add', 'variant', '--env', 'staging', '--base-url', t.baseUrl, '--api-key-stdin'], { env: home.env, stdin: `${t.key}\n` });
    expect(add.code, add.stderr).toBe(0);
    const file = join(home.configDir, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    config.profiles.variant.service = { filterNames: VARIANT.filterNames, failedStatus: VARIANT.deliveryStatus.failed };
    writeFileSync(file, JSON.stringify(config));
    const before = t.variant!.requests.length;
    const r = await runMain(['tx', 'list', '--status', 'cancelled', '--all', '--json'], { env: { ...home.env, OFFRAMP_PROFILE: 'variant' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(new Set((JSON.parse(r.stdout) as { data: { id: string }[] }).data.map((tx) => tx.id))).toEqual(new Set(facts.get('variant-beside')!.cancelled));
    const sent = t.variant!.requests.slice(before).filter((q) => q.path.endsWith('/transactions'));
    expect(sent.every((q) => q.query.get('state') === 'cancelled' && !q.query.has('status'))).toBe(true);
  });
});
