// POST /sandbox/simulate: drives one lifecycle event through the same machinery as normal
// processing (the spec): the lifecycle table decides whether the event is valid
// (refusal → 409), its steps write the history, and the event's webhook is recorded.
// The deposit record it keeps is in docs/emulator.md ("Lifecycle"). payout.settled writes no
// history row: a completed → completed row would read as a transition that does not exist.
// deposit_id and blockchain_hash go into the history row's metadata, the one place the spec
// gives for "extra data about the change".
import type { SimulateRequest, SimulatorEvent, Transaction } from '../lib/schemas.js';
import { RevenueRow, SIMULATOR_EVENTS } from '../lib/schemas.js';
import { refusal, TRANSITIONS } from '../lib/lifecycle.js';
import { Decimal } from '../lib/money.js';
import { chainHash, depositId } from './addresses.js';
import { iso } from './clock.js';
import { ApiProblem, badRequest, conflict } from './envelope.js';
import { formatFiat, REQUIRED_CONFIRMATIONS } from './pricing.js';
import { fees } from './revenue.js';
import type { Runtime } from './runtime.js';
import { viewOf, type PartnerState, type TxRecord } from './partners.js';
import { applySteps, findTransaction, snapshot } from './transactions.js';

const DEFAULT_REQUIRED_CONFIRMATIONS = 12;

/** the spec: the route exists only outside production; production hard-rejects it. */
export function refuseInProduction(rt: Runtime): void {
  if (rt.config.mode === 'production') {
    throw new ApiProblem('FORBIDDEN', 'simulation is disabled in production (the emulator runs with --mode production)');
  }
}

export function simulate(rt: Runtime, partner: PartnerState, body: SimulateRequest): Transaction {
  if (!(SIMULATOR_EVENTS as readonly string[]).includes(body.event)) {
    throw badRequest(`event must be one of: ${SIMULATOR_EVENTS.join(', ')}; got "${body.event.slice(0, 80)}"`);
  }
  const event = body.event as SimulatorEvent;
  for (const field of ['deposit_id', 'blockchain_hash'] as const) {
    const value = body[field];
    if (value != null && (value.length === 0 || value.length > 128)) throw badRequest(`${field} must be 1 to 128 characters`);
  }
  const tx = findTransaction(partner, body.transaction_id);
  const why = refusal(event, { status: tx.status, hasDeposit: tx.deposit !== null, payoutSettled: tx.payoutSettled });
  if (why) throw conflict(why);

  const now = rt.clock.now();
  const at = iso(now);
  const metadata: Record<string, unknown> = { source: 'simulator', event };
  switch (event) {
    case 'deposit.detected': {
      const required = REQUIRED_CONFIRMATIONS[tx.network] ?? DEFAULT_REQUIRED_CONFIRMATIONS;
      tx.deposit = {
        deposit_id: body.deposit_id ?? tx.deposit?.deposit_id ?? depositId(),
        blockchain_hash: body.blockchain_hash ?? tx.deposit?.blockchain_hash ?? chainHash(tx.network),
        status: 'detected',
        confirmations: 1,
        required_confirmations: required,
        received_at: tx.deposit?.received_at ?? at,
        confirmed_at: null,
      };
      break;
    }
    case 'deposit.confirmed': {
      const deposit = tx.deposit!;
      if (body.deposit_id != null && body.deposit_id !== deposit.deposit_id) {
        throw conflict(`deposit_id ${body.deposit_id} does not match the transaction's deposit ${deposit.deposit_id}`);
      }
      if (body.blockchain_hash != null) deposit.blockchain_hash = body.blockchain_hash;
      deposit.status = 'confirmed';
      deposit.confirmations = deposit.required_confirmations;
      deposit.confirmed_at = at;
      break;
    }
    case 'transaction.refunded':
      tx.deposit!.status = 'refunded';
      break;
    case 'payout.settled':
      tx.payoutSettled = true;
      break;
    default:
      break;
  }
  if (tx.deposit && (event === 'deposit.detected' || event === 'deposit.confirmed')) {
    metadata.deposit_id = tx.deposit.deposit_id;
    metadata.blockchain_hash = tx.deposit.blockchain_hash;
    metadata.confirmations = tx.deposit.confirmations;
  }
  const steps = TRANSITIONS[event].steps;
  if (steps.length > 0) applySteps(tx, steps, metadata, now);
  else tx.updated_at = at;
  rt.journal.changed('tx', partner, tx.id);
  if (event === 'transaction.completed') {
    const row = ledgerRowFor(tx, at);
    partner.ledger.add(row);
    rt.journal.changed('row', partner, row);
  }
  const data = snapshot(tx);
  rt.webhooks.record(partner, event, tx.id, data);
  return data;
}

/** The row a completion writes: the transaction's own fields of it (reference, token, network, amounts), stamped with the completion time. */
function ledgerRowFor(tx: TxRecord, completedAt: string): RevenueRow {
  const { platform_fee, share } = fees(new Decimal(tx.amount));
  return { ...rowOf(tx), transaction_id: tx.id, merchant_id: tx.merchant_id ?? '', terminal_id: tx.terminal_id ?? '', platform_fee: formatFiat(platform_fee), share: formatFiat(share), ts: completedAt };
}

const rowOf: (tx: TxRecord) => RevenueRow = viewOf(RevenueRow);
