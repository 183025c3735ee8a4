import { describe, expect, it } from 'vitest';
import { eventsValidFrom, isEdge, isForward, isFinal, refusal, TRANSITIONS } from '../../src/lib/lifecycle.js';
import { SIMULATOR_EVENTS } from '../../src/lib/vocabulary.js';

describe('lifecycle', () => {
  it('walks the happy path forward only', () => {
    const path = ['pending', 'awaiting_deposit', 'deposit_confirming', 'selling_crypto', 'order_filled', 'completed'];
    for (let i = 1; i < path.length; i++) {
      expect(isEdge(path[i - 1]!, path[i]!)).toBe(true);
      expect(isForward(path[i]!, path[i - 1]!)).toBe(false);
    }
    expect(isForward('awaiting_deposit', 'completed')).toBe(true);
  });

  it('has a rule for every simulator event, each with scope:word reasons', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...SIMULATOR_EVENTS].sort());
    for (const t of Object.values(TRANSITIONS)) for (const s of t.steps) expect(s.reason).toMatch(/^[a-z_]+:[a-z_]+$/);
  });

  it('refuses steps that are not valid from the current state', () => {
    expect(refusal('transaction.completed', { status: 'awaiting_deposit', hasDeposit: false, payoutSettled: false })).toMatch(/awaiting_deposit/);
    expect(refusal('deposit.detected', { status: 'awaiting_deposit', hasDeposit: false, payoutSettled: false })).toBeNull();
    expect(refusal('transaction.refunded', { status: 'failed', hasDeposit: false, payoutSettled: false })).toMatch(/deposit/);
    expect(refusal('transaction.refunded', { status: 'failed', hasDeposit: true, payoutSettled: false })).toBeNull();
    expect(refusal('payout.settled', { status: 'completed', hasDeposit: true, payoutSettled: true })).toMatch(/already/);
  });

  it('lists what is valid from a status, for 409 hints', () => {
    expect(eventsValidFrom('awaiting_deposit').sort()).toEqual(['deposit.detected', 'transaction.expired', 'transaction.failed']);
    expect(eventsValidFrom('completed')).toEqual(['payout.settled']);
    expect(eventsValidFrom('refunded')).toEqual([]);
  });

  it('knows the final statuses', () => {
    expect(['completed', 'failed', 'expired', 'cancelled', 'refunded'].every(isFinal)).toBe(true);
    expect(isFinal('selling_crypto')).toBe(false);
  });
});
