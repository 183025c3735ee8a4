// offramp tx watch (docs/transactions.md, "offramp tx watch"): every status change is shown,
// in order and each once, including those made between two polls (src/lib/tx/changes.ts).
import { Argument, Command, Option } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { CheckFailed, TimeoutError } from '../../lib/errors.js';
import { isOutage } from '../../lib/client/errors.js';
import { durationFlag } from '../../lib/input/values.js';
import { isFinal } from '../../lib/lifecycle.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { startSpinner } from '../../lib/output/spinner.js';
import { writeJson, writeNdjsonLine } from '../../lib/output/json.js';
import { humanDuration, localTime } from '../../lib/output/time.js';
import { paint } from '../../lib/output/sanitize.js';
import type { StatusHistoryEntry, Transaction } from '../../lib/schemas.js';
import { ChangeLog } from '../../lib/tx/changes.js';
import { TRANSACTION_STATUSES } from '../../lib/vocabulary.js';
import { MAX_TIMER_MS } from '../../lib/client/transport.js';
import { fetchTarget, resolveTarget } from '../../lib/tx/lookup.js';
import { statusHistory } from '../../lib/client/checked-calls.js';
import { examples, withArguments, type OptionsOf } from '../command.js';

export const command = () =>
  withArguments(new Command('watch'), new Argument('[id]', 'transaction id or its first 8+ characters'))
    .description('poll a transaction and show every status change until it ends')
    .option('--ref <merchant_reference>', 'watch by merchant reference')
    .addOption(new Option('--until <status>', 'stop when this status is reached (default: any final status)').choices(TRANSACTION_STATUSES))
    .option('--interval <duration>', 'time between polls: 500ms, 2s, 1m (a bare number is ms)', '2s')
    .addHelpText('after', '\n--timeout DURATION (global) is, for watch, the overall deadline (exit 7 when it passes).')
    .addHelpText('after', examples('offramp tx watch 0b6f3c1e', 'offramp tx watch --ref order-1042 --until completed --timeout 10m'));

/** Polling faster than this helps nobody and counts against the rate limit. */
export const MIN_INTERVAL_MS = 100;

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals, formatsOf('tx watch'));
  // No timer waits longer than MAX_TIMER_MS (a longer one would fire at once, in a loop).
  const interval = Math.min(durationFlag(opts.interval ?? '2s', '--interval', 'ms', MIN_INTERVAL_MS), MAX_TIMER_MS);
  // --until is one of the statuses: commander checks its choices.
  const until = opts.until;
  const target = await resolveTarget(ctx, opts.id, opts.ref);
  // The global --timeout is, for watch, the overall deadline (only when given: a watch
  // without one waits as long as the transaction takes). Each read then gets at most what
  // is left of it, retries included, whatever the service does.
  const deadline = ctx.globals.timeoutGiven ? ctx.now().getTime() + ctx.globals.timeout : undefined;
  const unbounded = await ctx.api();
  const api = deadline === undefined ? unbounded : unbounded.withBudget(() => deadline - ctx.now().getTime());
  const reads: Context = { ...ctx, api: async () => api };
  const spinner = format === 'table' ? await startSpinner(ctx.io, 'reading the transaction') : undefined;
  // The table renderer (chalk, string-width) only when this command runs: `tx get --json` loads this module too.
  const { chalkFor, statusColor } = await import('../../lib/output/render.js');
  const c = chalkFor(ctx.io);
  const color = (status: string) => statusColor(c, status);
  const goal = until ?? 'a final status';

  let tx: Transaction | undefined;
  const changes = new ChangeLog();
  /** When --until was reached on the way, by the history. */
  let reached: StatusHistoryEntry | undefined;
  let lastRead: string | undefined;
  /** Reads the history and shows the changes not shown yet, in order. */
  const catchUp = async (read: Transaction) => {
    const history = await statusHistory(api, read.id);
    for (const change of changes.take(history.history)) {
      spinner?.clear();
      showChange(ctx, format, change, color);
      if (change.to_status === until) reached ??= change;
    }
  };
  /** When the service stopped answering, and why, while it does not answer. */
  let downSince: number | undefined;
  let outage: Error | undefined;
  const passed = () => {
    spinner?.stop();
    const where = tx ? `transaction ${tx.id} is still ${tx.status}` : 'the transaction was not read';
    // An outage still on keeps its cause: it names the machine that failed (a proxy is not the service).
    const cause = outage ? ` (${outage.message})` : '';
    return new TimeoutError(`--timeout ${ctx.globals.timeout} ms passed before ${goal}; ${where}${cause}`, 'raise --timeout, or leave it out to watch until the transaction ends');
  };
  const pause = async () => {
    const now = ctx.now().getTime();
    if (deadline !== undefined && now >= deadline) throw passed();
    await ctx.sleep(deadline === undefined ? interval : Math.min(interval, deadline - now));
  };
  try {
    // The first read may be by reference or short id; after that the id is known.
    let current = target;
    for (;;) {
      try {
        tx = await fetchTarget(reads, current);
        current = { id: tx.id };
        // Changed since the last poll (or never read): the history says how, step by step.
        const stamp = `${tx.status}|${tx.updated_at}`;
        if (stamp !== lastRead || changes.last !== tx.status) await catchUp(tx);
        lastRead = stamp;
      } catch (err) {
        // An outage is ridden out until the watch's own deadline (none: until Ctrl-C), said
        // once when it starts and once when it ends (docs/transactions.md, "offramp tx watch").
        if (!isOutage(err)) throw err;
        // A read the deadline cut short says nothing new about an outage (the error before it
        // does) nor about a service that answered: only when nothing was ever read is it the cause.
        if (deadline !== undefined && ctx.now().getTime() >= deadline) {
          if (!tx) outage ??= err as Error;
          throw passed();
        }
        outage = err as Error;
        if (downSince === undefined) {
          downSince = ctx.now().getTime();
          spinner?.clear();
          ctx.io.err(`warning: the service does not answer (${(err as Error).message}); still watching, a read every ${interval} ms until ${deadline === undefined ? 'Ctrl-C' : '--timeout passes'}`);
        }
        await pause();
        continue;
      }
      if (downSince !== undefined) {
        spinner?.clear();
        ctx.io.err(`the service answers again, after ${humanDuration(ctx.now().getTime() - downSince)}; still watching`);
        downSince = undefined;
        outage = undefined;
      }
      if (spinner) {
        spinner.text = ctx.io.terminalText(`${tx.id}: ${tx.status}${depositNote(tx)}, waiting for ${goal}`);
        spinner.render();
      }

      const done = until === undefined ? isFinal(tx.status) : tx.status === until || reached;
      if (done || isFinal(tx.status)) {
        spinner?.stop();
        // The status the watch ends on, with what the snapshot says of the deposit.
        if (format === 'table') ctx.io.print(['final status: ', paint(tx.status, color), depositNote(tx)]);
        if (!done) throw new CheckFailed(`transaction ${tx.id} ended in ${tx.status}, not ${goal}`, `\`offramp tx history ${tx.id}\` shows how it got there`);
        ctx.io.err(until === undefined || tx.status === until ? `reached ${tx.status}` : `reached ${until} at ${reached!.changed_at} (now ${tx.status})`);
        return;
      }

      await pause();
    }
  } catch (err) {
    // A read the deadline cut short is the deadline passing, said as such.
    if (deadline !== undefined && err instanceof TimeoutError && ctx.now().getTime() >= deadline) throw passed();
    throw err;
  } finally {
    spinner?.stop();
    // --json is the last snapshot read, however the watch ends.
    if (format === 'json' && tx) writeJson(ctx.io, tx);
  }
}

/** One change: when, from → to (the new status coloured), and the service's reason; -o ndjson: the history entry as sent. */
function showChange(ctx: Context, format: string, change: StatusHistoryEntry, color: (status: string) => string): void {
  if (format === 'ndjson') return writeNdjsonLine(ctx.io, change);
  if (format !== 'table') return;
  const when = ctx.io.stdoutIsTTY ? localTime(change.changed_at) : change.changed_at;
  ctx.io.print([`${when}  ${change.from_status} → `, paint(change.to_status, color), `  ${change.reason}`]);
}

function depositNote(tx: Transaction): string {
  const deposit = tx.deposit_status ? `, deposit ${tx.deposit_status}` : '';
  const confirmations = tx.confirmations != null ? ` (${tx.confirmations}${tx.required_confirmations != null ? `/${tx.required_confirmations}` : ''} confirmations)` : '';
  return `${deposit}${confirmations}`;
}
