import { describe, expect, it } from 'vitest';
import { statusNamedIn } from '../../src/lib/sandbox/conflict.js';
import { eventsFor, remainingEvents, walkReference } from '../../src/lib/sandbox/walk.js';
import { isForward, TRANSITIONS } from '../../src/lib/lifecycle.js';

describe('walk plans', () => {
  it('every plan is a valid path from awaiting_deposit to its outcome', () => {
    for (const [outcome, settle] of [['completed', false], ['completed', true], ['failed', false], ['refunded', false], ['expired', false]] as const) {
      let status = 'awaiting_deposit';
      for (const event of eventsFor(outcome, settle)) {
        expect(TRANSITIONS[event].from).toContain(status);
        status = TRANSITIONS[event].steps.at(-1)?.to ?? status;
      }
      expect(status).toBe(outcome);
    }
    expect(eventsFor('completed', true).at(-1)).toBe('payout.settled');
    expect(eventsFor('failed', false)).toEqual(['deposit.detected', 'deposit.confirmed', 'transaction.failed']);
    expect(eventsFor('expired', false)).toEqual(['transaction.expired']);
  });

  it('continues an existing transaction from where it is', () => {
    expect(remainingEvents('awaiting_deposit', 'completed', false)).toEqual(['deposit.detected', 'deposit.confirmed', 'transaction.completed']);
    expect(remainingEvents('selling_crypto', 'completed', true)).toEqual(['transaction.completed', 'payout.settled']);
    expect(remainingEvents('deposit_confirming', 'refunded', false)).toEqual(['deposit.confirmed', 'transaction.failed', 'transaction.refunded']);
    expect(remainingEvents('failed', 'refunded', false)).toEqual(['transaction.refunded']);
    expect(remainingEvents('completed', 'completed', true)).toEqual(['payout.settled']);
  });

  it('knows when there is nothing left to do, or no way there', () => {
    expect(remainingEvents('completed', 'completed', false)).toEqual([]);
    expect(remainingEvents('failed', 'failed', false)).toEqual([]);
    expect(remainingEvents('expired', 'completed', false)).toBeNull();
    expect(remainingEvents('deposit_confirming', 'expired', false)).toBeNull();
    expect(isForward('deposit_confirming', 'expired')).toBe(false);
  });

  it('makes references that say what they are and do not repeat', () => {
    const now = new Date('2026-11-22T14:31:05.123Z');
    const ref = walkReference(now);
    expect(ref).toMatch(/^walk-20261122T143105Z-[0-9a-f]{6}$/);
    expect(walkReference(now)).not.toBe(ref);
  });

  it('finds the status a 409 message names', () => {
    expect(statusNamedIn('event deposit.detected is not valid for a transaction in status expired')).toBe('expired');
    expect(statusNamedIn('Transaction cannot be cancelled in status completed')).toBe('completed');
    expect(statusNamedIn('transaction.completed refused: it is selling_crypto')).toBe('selling_crypto');
    expect(statusNamedIn('transaction.completed is not allowed')).toBeUndefined();
  });
});
