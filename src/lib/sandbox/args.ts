// Argument checks shared by the sandbox commands; each refuses before any request.
import { UsageError } from '../errors.js';
import { parseUuid } from '../input/values.js';
import { OUTCOMES, type Outcome } from './walk.js';

/** Transaction ids are uuids (the spec); anything else would only earn a 400 or 404. */
export function checkTransactionId(value: string): string {
  return parseUuid(value, 'TX_ID');
}

/** --settle sends payout.settled, which only follows a completion. */
export function checkOutcome(value: string | undefined, settle: boolean | undefined): Outcome {
  const outcome = (value ?? 'completed') as Outcome;
  if (!OUTCOMES.includes(outcome)) throw new UsageError(`--outcome ${value}: expected one of ${OUTCOMES.join(', ')}`);
  if (settle && outcome !== 'completed') throw new UsageError(`--settle only applies to --outcome completed (got ${outcome})`);
  return outcome;
}
