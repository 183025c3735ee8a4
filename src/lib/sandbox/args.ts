// Argument checks shared by the sandbox commands; each refuses before any request.
import { UsageError } from '../errors.js';
import { OUTCOMES, type Outcome } from './walk.js';

/** --settle sends payout.settled, which only follows a completion. */
export function checkOutcome(value: string | undefined, settle: boolean | undefined): Outcome {
  const outcome = (value ?? 'completed') as Outcome;
  if (!OUTCOMES.includes(outcome)) throw new UsageError(`--outcome ${value}: expected one of ${OUTCOMES.join(', ')}`);
  if (settle && outcome !== 'completed') throw new UsageError(`--settle only applies to --outcome completed (got ${outcome})`);
  return outcome;
}
