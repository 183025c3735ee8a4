// offramp simulate (docs/sandbox.md). Staging only: refused on a production profile before any
// request. Asked for on a terminal, the event is picked among those valid from the
// transaction's current status (src/lib/lifecycle.ts), so the picker never offers a step the
// service would refuse.
import { Argument, Command } from '@commander-js/extra-typings';
import { simulateEvent, transactionById } from '../../lib/client/checked-calls.js';
import type { Context } from '../../lib/context.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { ApiError, CliError, EXIT, UsageError } from '../../lib/errors.js';
import { ask, shellQuote } from '../../lib/input/values.js';
import { refusal } from '../../lib/lifecycle.js';
import { writeJson } from '../../lib/output/json.js';
import { explainConflict, validEventsHint } from '../../lib/sandbox/conflict.js';
import { resolveTarget, targetId } from '../../lib/tx/lookup.js';
import { renderTransaction } from '../../lib/tx/render.js';
import { SIMULATOR_EVENTS, type SimulatorEvent } from '../../lib/vocabulary.js';
import { examples, withArguments, type OptionsOf } from '../command.js';
import { refuseProduction } from '../../lib/config/production.js';

/** `offramp simulate` itself (its `walk` is in walk.ts). */
export const command = () =>
  withArguments(new Command('simulate'), new Argument('[tx_id]', 'transaction id or its first 8+ characters'), new Argument('[event]', `one of: ${SIMULATOR_EVENTS.join(', ')}`))
    .description('drive a staging transaction through its lifecycle (staging only)')
    .option('--ref <merchant_reference>', 'the transaction by merchant reference instead (then EVENT is the only argument)')
    .option('--deposit-id <id>', 'stable simulated deposit id')
    .option('--hash <hash>', 'simulated blockchain hash')
    .addHelpText(
      'after',
      examples('offramp simulate 0b6f3c1e deposit.detected', 'offramp simulate --ref order-1042 deposit.detected', 'offramp simulate walk --outcome completed --settle'),
    );

const EVENT_LIST = `events: ${SIMULATOR_EVENTS.join(', ')}`;

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  resolveFormat(ctx.globals, formatsOf('simulate'));
  // With --ref the one positional argument is the event.
  const [idArg, eventArg] = opts.ref !== undefined && opts.event === undefined ? [undefined, opts.txId] : [opts.txId, opts.event];
  if (idArg !== undefined && eventArg !== undefined && isEvent(idArg) && !isEvent(eventArg)) {
    throw new UsageError(`TX_ID comes first, then EVENT ("${idArg}" is an event)`, `did you mean: offramp simulate ${shellQuote(eventArg)} ${idArg}`);
  }
  // Everything given is checked first; only then is anything missing asked for.
  const givenEvent = eventArg !== undefined ? checkEvent(eventArg) : undefined;
  const target = await resolveTarget(ctx, idArg, opts.ref, { name: 'TX_ID' });
  if (givenEvent === undefined && !ctx.io.canPrompt()) {
    throw new UsageError('missing EVENT: offramp simulate TX_ID EVENT', EVENT_LIST);
  }
  await refuseProduction(ctx, 'simulate');
  const txId = await targetId(ctx, target);
  const api = await ctx.api();
  const event = givenEvent ?? (await pickEvent(ctx, txId));

  let snapshot;
  try {
    snapshot = await simulateEvent(api, {
      transaction_id: txId,
      event,
      ...(opts.depositId !== undefined ? { deposit_id: opts.depositId } : {}),
      ...(opts.hash !== undefined ? { blockchain_hash: opts.hash } : {}),
    });
  } catch (err) {
    throw err instanceof ApiError && err.status === 409 ? await explainConflict(api, txId, event, err) : err;
  }
  if (ctx.globals.json) writeJson(ctx.io, snapshot);
  else renderTransaction(ctx.io, snapshot, ctx.now(), 'snapshot');
}

/**
 * The picker: only the events valid from the transaction's current status (and, for a
 * refund, only once a deposit was received); none valid is the conflict the service
 * would answer, said before anything is sent.
 */
async function pickEvent(ctx: Context, txId: string): Promise<SimulatorEvent> {
  const tx = await transactionById(await ctx.api(), txId);
  const facts = { status: tx.status, hasDeposit: tx.deposit_id != null || tx.received_at != null, payoutSettled: false };
  const valid = SIMULATOR_EVENTS.filter((e) => refusal(e, facts) === null);
  if (valid.length === 0) {
    throw new CliError(`transaction ${txId} is ${tx.status}: no simulator event is valid from there`, 'CONFLICT', EXIT.conflict, validEventsHint(tx.status));
  }
  return ask(ctx, 'EVENT', undefined, (p, c) =>
    p.select<SimulatorEvent>({ message: ctx.io.terminalText(`Simulator event (transaction is ${tx.status})`), choices: valid.map((value) => ({ value })) }, c),
  );
}

/** Refused before any request unless it is one of the seven (the service would answer 400). */
function checkEvent(value: string): SimulatorEvent {
  if (!isEvent(value)) {
    throw new UsageError(`unknown simulator event "${value}"`, EVENT_LIST);
  }
  return value;
}

function isEvent(value: string): value is SimulatorEvent {
  return (SIMULATOR_EVENTS as readonly string[]).includes(value);
}
