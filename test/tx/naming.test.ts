// Naming a transaction (docs/transactions.md, "Naming a transaction"): the short id a
// narrow table shows is pasted back into every command that takes a transaction, `--ref`
// works wherever an id does, and `tx watch` shows every change made between two polls.
// Against the emulator, the variant server (other list shape, whole-second times) and the
// variant listing in the opposite order: the answer may not depend on the order of a list.
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { PREFIX_SEARCH_LIMIT } from '../../src/lib/tx/short-id.js';
import { runMain } from '../helpers/main.js';
import { startVariant, type RunningVariant } from '../helpers/variant-server.js';
import { partner } from './partner.js';

type Target = { name: string; baseUrl: string; key: string; emu: RunningEmulator; variant?: RunningVariant; close(): Promise<void> };
type Tx = { id: string; merchant_reference: string; status: string };

const targets: Target[] = [];
/** Per target: transactions by reference, and two whose ids share their first 8 characters. */
const facts = new Map<string, { byRef: Map<string, Tx>; twins: [string, string] }>();

async function call(t: Target, method: string, path: string, body?: unknown, idem?: string) {
  const r = await partner(t.baseUrl, t.key).call(method, path, body, idem);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.error)}`);
  return r.data;
}

const create = (t: Target, ref: string): Promise<Tx> =>
  call(t, 'POST', '/transactions', { fiat_amount: '5000.00', crypto_currency: 'usdt', network: 'bep20', merchant_reference: ref }, `k-${t.name}-${ref}`);

async function populate(t: Target) {
  const byRef = new Map<string, Tx>();
  for (const ref of ['get', 'cancel', 'simulate', 'walk', 'watch', 'twin-1', 'twin-2', 'steps']) byRef.set(ref, await create(t, `${t.name}-${ref}`));
  // The second twin's id rewritten to start as the first's does: two ids one short id names.
  const [a, b] = [byRef.get('twin-1')!.id, byRef.get('twin-2')!.id];
  const twin = a.slice(0, 8) + b.slice(8);
  t.emu.importState(recommit(t.emu.exportState().split(b).join(twin)));
  byRef.get('twin-2')!.id = twin;
  return { byRef, twins: [a, twin] as [string, string] };
}

/** A state document edited by hand, its batches' checksums written again. */
function recommit(doc: string): string {
  let batch = '';
  return doc.replace(/^.*\n/gm, (line) => {
    if (!line.startsWith('{"k":"commit"')) {
      batch += line;
      return line;
    }
    const { n } = JSON.parse(line) as { n: number };
    const out = `{"k":"commit","n":${n},"crc32":${crc32(Buffer.from(batch))}}\n`;
    batch = '';
    return out;
  });
}

beforeAll(async () => {
  const emu = await startEmulator({ port: 0, apiKeys: ['sk_test_naming'], clock: new ManualClock(), webhookRetry: { maxAttempts: 1, baseDelayMs: 5 } });
  targets.push({ name: 'emulator', baseUrl: emu.url, key: 'sk_test_naming', emu, close: () => emu.close() });
  for (const reverseLists of [false, true]) {
    const variant = await startVariant({ reverseLists, emulator: { clock: new ManualClock(), webhookRetry: { maxAttempts: 1, baseDelayMs: 5 } } });
    targets.push({ name: reverseLists ? 'variant-reversed' : 'variant', baseUrl: variant.baseUrl, key: variant.apiKey, emu: variant.emu, variant, close: () => variant.close() });
  }
  for (const t of targets) facts.set(t.name, await populate(t));
}, 60_000);

afterAll(async () => {
  for (const t of targets) await t.close();
});

const byName = (name: string) => targets.find((t) => t.name === name)!;
const env = (t: Target) => ({ OFFRAMP_API_KEY: t.key, OFFRAMP_BASE_URL: t.baseUrl });
const run = (t: Target, args: string[], opts: Parameters<typeof runMain>[1] = {}) => runMain(args, { env: env(t), ...opts });
const tx = (name: string, ref: string) => facts.get(name)!.byRef.get(ref)!;

describe.each(['emulator', 'variant', 'variant-reversed'])('naming a transaction against %s', (name) => {
  it('the id `tx list` shows at 80 columns, pasted back, names the transaction in every command', async () => {
    const t = byName(name);
    const list = await run(t, ['tx', 'list', '--limit', '100'], { columns: 80 });
    expect(list.code, list.stderr).toBe(0);
    // The reversed variant lists oldest first: the first transaction made comes first.
    const rows = list.stdout.trimEnd().split('\n').slice(1);
    expect(rows[0]).toMatch(name === 'variant-reversed' ? /-get$/ : /-steps$/);
    const row = rows.find((l) => l.endsWith(`${name}-get`))!;
    const shown = row.split(' ')[0]!;
    expect(shown).toMatch(/^[0-9a-f]{8}…$/);
    const { id } = tx(name, 'get');
    expect(id.startsWith(shown.slice(0, 8))).toBe(true);

    for (const pasted of [shown, shown.slice(0, 8), id.slice(0, 13).toUpperCase()]) {
      const got = await run(t, ['tx', 'get', pasted, '--json']);
      expect(got.code, got.stderr).toBe(0);
      expect(JSON.parse(got.stdout).id).toBe(id);
    }
    const history = await run(t, ['tx', 'history', shown, '--json']);
    expect(history.code, history.stderr).toBe(0);
    expect(JSON.parse(history.stdout).id).toBe(id);
    const events = await run(t, ['webhooks', 'list', '--tx', shown.slice(0, 8), '--all', '--json']);
    expect(events.code, events.stderr).toBe(0);
    const listed = (JSON.parse(events.stdout) as { data: { event_id: string; aggregate_id: string }[] }).data;
    expect(listed.map((e) => e.aggregate_id)).toEqual([id]);

    // A webhook event's short id works the same way.
    const event = await run(t, ['webhooks', 'get', listed[0]!.event_id.slice(0, 8), '--json']);
    expect(event.code, event.stderr).toBe(0);
    expect(JSON.parse(event.stdout).event_id).toBe(listed[0]!.event_id);
  });

  it('--ref names the transaction in tx history, tx cancel, tx watch, simulate, simulate walk, webhooks list and reconcile', async () => {
    const t = byName(name);
    const ref = (r: string) => `${name}-${r}`;
    const history = await run(t, ['tx', 'history', '--ref', ref('get'), '--json']);
    expect(history.code, history.stderr).toBe(0);
    expect(JSON.parse(history.stdout).id).toBe(tx(name, 'get').id);

    const events = await run(t, ['webhooks', 'list', '--ref', ref('get'), '--all', '--json']);
    expect(events.code, events.stderr).toBe(0);
    expect((JSON.parse(events.stdout) as { data: { aggregate_id: string }[] }).data.map((e) => e.aggregate_id)).toEqual([tx(name, 'get').id]);

    const simulated = await run(t, ['simulate', '--ref', ref('simulate'), 'deposit.detected', '--json']);
    expect(simulated.code, simulated.stderr).toBe(0);
    expect(JSON.parse(simulated.stdout)).toMatchObject({ id: tx(name, 'simulate').id, status: 'deposit_confirming' });

    const walked = await run(t, ['simulate', 'walk', '--ref', ref('walk'), '--outcome', 'failed', '--json']);
    expect(walked.code, walked.stderr).toBe(0);
    expect(JSON.parse(walked.stdout).transaction).toMatchObject({ id: tx(name, 'walk').id, status: 'failed' });

    const watched = await run(t, ['tx', 'watch', '--ref', ref('walk'), '--json']);
    expect(watched.code, watched.stderr).toBe(0);
    expect(JSON.parse(watched.stdout).id).toBe(tx(name, 'walk').id);

    const cancelled = await run(t, ['tx', 'cancel', '--ref', ref('cancel'), '--yes', '--json']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ id: tx(name, 'cancel').id, status: 'cancelled' });
    // Cancelled already: what was asked for holds, exit 0 with a notice.
    const again = await run(t, ['tx', 'cancel', '--ref', ref('cancel'), '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`transaction ${tx(name, 'cancel').id} is already cancelled; nothing to do`);
    // Any other final status is still the conflict.
    const late = await run(t, ['tx', 'cancel', '--ref', ref('walk'), '--yes']);
    expect(late.code).toBe(5);
    expect(late.stderr).toMatch(/^error: CONFLICT: .*failed/m);

    // One transaction from its creation to now: its events were never delivered (no
    // endpoint), so the check fails, about that transaction only.
    for (const named of [['--ref', ref('get')], ['--tx', tx(name, 'get').id.slice(0, 8)]]) {
      const reconciled = await run(t, ['reconcile', ...named, '--json']);
      expect([0, 8]).toContain(reconciled.code);
      const report = JSON.parse(reconciled.stdout) as { checked: { transactions: number }; discrepancies: { transaction_id: string }[] };
      expect(report.checked.transactions).toBe(1);
      expect(new Set(report.discrepancies.map((d) => d.transaction_id))).toEqual(new Set(report.discrepancies.length ? [tx(name, 'get').id] : []));
    }
  });

  it('a short id two transactions share is exit 2 naming both; one no transaction has is exit 4', async () => {
    const t = byName(name);
    const [a, b] = facts.get(name)!.twins;
    const before = t.variant?.requests.length ?? 0;
    const twins = await run(t, ['tx', 'get', a.slice(0, 8)]);
    expect(twins.code).toBe(2);
    expect(twins.stderr).toContain(`error: USAGE: ${a.slice(0, 8)} matches 2 transactions: `);
    expect(twins.stderr).toContain(`${a} (${name}-twin-1, awaiting_deposit,`);
    expect(twins.stderr).toContain(`${b} (${name}-twin-2, awaiting_deposit,`);
    expect(twins.stderr).toContain('hint: give more of the id, or the whole id');
    // Only the list was read: no transaction was asked for by a guessed id.
    if (t.variant) expect(t.variant.requests.slice(before).every((r) => r.path.endsWith('/transactions'))).toBe(true);

    const one = await run(t, ['tx', 'cancel', b.slice(0, 36 - 4), '--yes', '--json']);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout).id).toBe(b);

    const none = await run(t, ['tx', 'history', '00000000']);
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(/^error: NOT_FOUND: no transaction id starting with 00000000 among any of the \d+ transactions the service lists\n/);
  });

  it('tx watch shows every change made between two polls, in order, each once, then the final status', async () => {
    const t = byName(name);
    const { id } = tx(name, 'steps');
    let polls = 0;
    const r = await run(t, ['tx', 'watch', id.slice(0, 8), '--interval', '100'], {
      // Between the first poll and the second the transaction moves five times (the
      // emulator's clock a second apart; under the variants not at all, so times tie).
      sleep: async () => {
        if (polls++ > 0) return;
        for (const event of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) {
          await call(t, 'POST', '/sandbox/simulate', { transaction_id: id, event });
          if (name === 'emulator') t.emu.clock.advance?.(1000);
        }
      },
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(0, -1).map((l) => l.split('  ')[1])).toEqual([
      'pending → awaiting_deposit',
      'awaiting_deposit → deposit_confirming',
      'deposit_confirming → selling_crypto',
      'selling_crypto → order_filled',
      'order_filled → completed',
    ]);
    expect(lines.at(-1)).toMatch(/^final status: completed/);
    expect(r.stderr).toContain('reached completed');
    expect(polls).toBe(1);
  });
});

it('the search is bounded and documented as such', () => {
  expect(PREFIX_SEARCH_LIMIT).toBe(500);
});
