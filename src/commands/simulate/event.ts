// offramp simulate TX_ID EVENT [--deposit-id ID] [--hash H]: one simulator event, then the
// resulting snapshot. Staging only: refused on a production profile before any request.
import { Argument, Command } from '@commander-js/extra-typings';
import { simulateEvent } from '../../lib/client/checked-calls.js';
import type { Context } from '../../lib/context.js';
import { resolveFormat } from '../../lib/output/format.js';
import { ApiError, UsageError } from '../../lib/errors.js';
import { ask, uuidProblem, validator } from '../../lib/input/values.js';
import { writeJson } from '../../lib/output/json.js';
import { checkTransactionId } from '../../lib/sandbox/args.js';
import { explainConflict } from '../../lib/sandbox/conflict.js';
import { renderTransaction } from '../../lib/tx/render.js';
import { SIMULATOR_EVENTS, type SimulatorEvent } from '../../lib/vocabulary.js';
import { examples, withArguments, type OptionsOf } from '../command.js';

/** `offramp simulate` itself (its `walk` is in walk.ts). */
export const command = () =>
  withArguments(new Command('simulate'), new Argument('[tx_id]', 'transaction id'), new Argument('[event]', `one of: ${SIMULATOR_EVENTS.join(', ')}`))
    .description('drive a staging transaction through its lifecycle (staging only)')
    .option('--deposit-id <id>', 'stable simulated deposit id')
    .option('--hash <hash>', 'simulated blockchain hash')
    .addHelpText('after', examples('offramp simulate 0b6f…91 deposit.detected', 'offramp simulate walk --outcome completed --settle'));

const EVENT_LIST = `events: ${SIMULATOR_EVENTS.join(', ')}`;

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  resolveFormat(ctx.globals, ['table', 'json']);
  // Everything given is checked first; only then is anything missing asked for.
  const given = opts.txId !== undefined ? checkTransactionId(opts.txId) : undefined;
  const givenEvent = opts.event !== undefined ? checkEvent(opts.event) : undefined;
  if (givenEvent === undefined && given !== undefined && !ctx.io.canPrompt()) {
    throw new UsageError('missing EVENT: offramp simulate TX_ID EVENT', EVENT_LIST);
  }
  const txId = await ask(ctx, 'TX_ID', given, (p, c) =>
    p.input({ message: 'Transaction id', validate: validator(uuidProblem) }, c).then((v) => v.trim()),
  );
  const event = await ask(ctx, 'EVENT', givenEvent, (p, c) =>
    p.select<SimulatorEvent>({ message: 'Simulator event', choices: SIMULATOR_EVENTS.map((value) => ({ value })) }, c),
  );
  await ctx.refuseProduction('simulate');

  const api = await ctx.api();
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

/** Refused before any request unless it is one of the seven (the service would answer 400). */
function checkEvent(value: string): SimulatorEvent {
  if (!(SIMULATOR_EVENTS as readonly string[]).includes(value)) {
    throw new UsageError(`unknown simulator event "${value}"`, EVENT_LIST);
  }
  return value as SimulatorEvent;
}
