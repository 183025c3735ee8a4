// The walk as the user watches it: on a terminal one spinner per step that turns into a
// tick with the status change; elsewhere (CI logs, pipes) one plain line per step. Always
// on stderr: it is progress, and stdout stays for the data (history, snapshot, JSON).
import type { ChalkInstance } from 'chalk';
import type { Ora } from 'ora';
import { spinnerFactory } from '../output/spinner.js';
import type { IO } from '../io.js';
import { chalkFor, statusColor } from '../output/render.js';
import { paint, type Text } from '../output/sanitize.js';
import type { StepName, WalkStep } from './walk.js';

const NAME_WIDTH = 'transaction.completed'.length;

export class Timeline {
  private spinner: Ora | undefined;

  private constructor(
    private readonly io: IO,
    private readonly makeSpinner: ((text: string) => Ora) | undefined,
  ) {}

  static async create(io: IO): Promise<Timeline> {
    return new Timeline(io, await spinnerFactory(io));
  }

  begin(info: { n: number; total: number; step: StepName }): void {
    this.spinner = this.makeSpinner?.(`${counter(info.n, info.total)} ${info.step} …`);
  }

  done(info: { n: number; total: number; step: WalkStep }): void {
    const line = [`${counter(info.n, info.total)} `, ...describeStep(info.step, chalkFor(this.io, 'err'))];
    if (this.spinner) {
      this.spinner.succeed(this.io.terminalText(line));
      this.spinner = undefined;
    } else {
      this.io.err(line);
    }
  }

  /** Ends the running spinner (if any) as failed; the error itself is reported elsewhere. */
  fail(): void {
    this.spinner?.fail(this.spinner.text.replace(/ …$/, ' failed'));
    this.spinner = undefined;
  }

  /** A line between steps (a webhook arriving) that must not tear the spinner. */
  note(line: string): void {
    if (this.spinner?.isSpinning) {
      this.spinner.clear();
      this.io.err(line);
      this.spinner.render();
    } else {
      this.io.err(line);
    }
  }
}

/** `[2/5]`, or `[1/…]` while the number of steps is not known yet. */
function counter(n: number, total: number): string {
  return `[${n}/${total > 0 ? total : '…'}]`;
}

/**
 * `deposit.detected        awaiting_deposit → deposit_confirming  12 ms`, as pieces: what
 * the service answered is text (made terminal-safe when written), the colour is ours.
 */
export function describeStep(step: WalkStep, c: ChalkInstance): Text[] {
  const name = step.step.padEnd(NAME_WIDTH);
  const d = step.detail ?? {};
  const status = (value: string | null | undefined) => paint(value ?? '?', (s) => statusColor(c, s));
  const what: Text[] =
    step.step === 'quote'
      ? [`${d.fiat_amount} NGN at ${d.adjusted_rate} NGN per ${d.crypto_currency} (quote ${d.quote_id})`]
      : step.step === 'create'
        ? [status(step.status), `  tx ${d.transaction_id}  ref ${d.merchant_reference}  (Idempotency-Key ${d.idempotency_key})`]
        : step.step === 'read'
          ? [status(step.status)]
          : step.status === step.status_before
            ? [status(step.status), ' ', paint('(unchanged)', c.dim)]
            : [status(step.status_before), ' → ', status(step.status)];
  return [`${name}  `, ...what, '  ', paint(`${step.ms} ms`, c.dim)];
}
