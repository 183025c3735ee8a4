// The `simulate` event picker, on a real terminal: it offers only the events valid from the
// transaction's current status (src/lib/lifecycle.ts), so a person cannot pick a step the
// service would refuse; with none valid it says so before anything is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor } from '../helpers/emulator.js';
import { KEYS, runInPty } from '../helpers/pty.js';
import { emulatorWithPartner, type partner } from '../tx/partner.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
let api: ReturnType<typeof partner>;
beforeAll(async () => ({ emu, api } = await emulatorWithPartner()));
afterAll(() => emu.close());

const ALL = ['deposit.detected', 'deposit.confirmed', 'transaction.completed', 'transaction.failed', 'transaction.expired', 'transaction.refunded', 'payout.settled'];

describe('simulate on a terminal, EVENT left out', { timeout: 60_000 }, () => {
  it.each([
    ['awaiting_deposit', [], ['deposit.detected', 'transaction.failed', 'transaction.expired']],
    ['deposit_confirming', ['deposit.detected'], ['deposit.confirmed', 'transaction.failed']],
    ['completed', ['deposit.detected', 'deposit.confirmed', 'transaction.completed'], ['payout.settled']],
  ])('from %s offers only the events valid there, and sends the one picked', async (status, before, offered) => {
    const tx = await api.create(`picker-${status}`);
    for (const event of before) await api.simulate(tx.id, event);
    const s = runInPty(['simulate', tx.id.slice(0, 8)], emu.env, 20_000, 80);
    await s.waitFor(`Simulator event (transaction is ${status})`);
    await s.waitFor(offered.at(-1)!);
    const menu = s.output.slice(s.output.indexOf('Simulator event'));
    for (const event of ALL) expect(menu.includes(event), `${event} offered from ${status}`).toBe(offered.includes(event));
    s.type(KEYS.enter);
    const r = await s.done;
    expect(r.code, r.output).toBe(0);
    // The first offered was sent: the transaction moved (or, for payout.settled, stayed completed).
    const after = await api.get(`/transactions/${tx.id}`);
    expect(after.status).toBe({ awaiting_deposit: 'deposit_confirming', deposit_confirming: 'selling_crypto', completed: 'completed' }[status]);
  });

  it('from cancelled, where no event is valid, exits 5 before sending anything', async () => {
    const tx = await api.create('picker-cancelled');
    await api.call('POST', `/transactions/${tx.id}/cancel`, undefined, `cancel-${tx.id}`);
    const s = runInPty(['simulate', '--ref', 'picker-cancelled'], emu.env, 20_000, 80);
    const r = await s.done;
    expect(r.code, r.output).toBe(5);
    expect(r.output).toContain(`error: CONFLICT: transaction ${tx.id} is cancelled: no simulator event is valid from there`);
    expect((await api.get(`/transactions/${tx.id}/status-history`)).history.at(-1).to_status).toBe('cancelled');
  });
});
