// A simulator 409 ("not a valid step for the current state") made useful: say which
// status the transaction is in and which events are valid from it.
import { transactionById } from '../client/checked-calls.js';
import type { Api } from '../client/api.js';
import { type ApiError, CliError, EXIT } from '../errors.js';
import { eventsValidFrom } from '../lifecycle.js';
import { TRANSACTION_STATUSES } from '../vocabulary.js';

/** A 409 from the simulator, explained; keeps the service's envelope for `--json`. */
class SimulatorConflict extends CliError {
  constructor(
    message: string,
    hint: string,
    readonly envelope: unknown,
  ) {
    super(message, 'CONFLICT', EXIT.conflict, hint);
  }
}

/** The current status from a read, else from the 409's message, whose wording the spec does not fix. */
export async function explainConflict(api: Api, txId: string, event: string, err: ApiError): Promise<SimulatorConflict> {
  let status: string | undefined;
  try {
    status = (await transactionById(api, txId)).status;
  } catch {
    status = statusNamedIn(err.message);
  }
  if (!status) {
    return new SimulatorConflict(`${event} was refused: ${err.message}`, 'read the transaction (offramp tx get) to see its status', err.envelope);
  }
  return new SimulatorConflict(`transaction ${txId} is ${status}; the service refused ${event}: ${err.message}`, validEventsHint(status), err.envelope);
}

/** The hint of a refused step: which simulator events are valid from `status`. */
export function validEventsHint(status: string): string {
  const valid = eventsValidFrom(status);
  return valid.length ? `events valid from ${status}: ${valid.join(', ')}` : `no simulator event is valid from ${status}`;
}

/**
 * A status named in `message`: the word after "status" when there is one, else the
 * longest status name standing alone (not part of an event name like transaction.completed).
 */
export function statusNamedIn(message: string): string | undefined {
  const known = TRANSACTION_STATUSES as readonly string[];
  const after = /\bstatus\b[\s:=]*(?:is\s+)?["'`]?([a-z_]+)/i.exec(message)?.[1]?.toLowerCase();
  if (after && known.includes(after)) return after;
  const named = known.filter((s) => new RegExp(`(?<![.\\w])${s}(?![.\\w])`).test(message));
  return named.sort((a, b) => b.length - a.length)[0];
}
