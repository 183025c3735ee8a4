// offramp reconcile: cross-checks, per transaction, the transaction reads, the revenue ledger
// and the webhook event history (rules: src/lib/reconcile/check.ts). What is read, and why
// that far, is in docs/finance.md ("offramp reconcile").
import { Command } from '@commander-js/extra-typings';
import pLimit from 'p-limit';
import { transactionById } from '../lib/client/checked-calls.js';
import { DEFAULT_DELIVERED_STATUS, DEFAULT_FAILED_STATUS } from '../lib/config/profile.js';
import type { Context } from '../lib/context.js';
import { CheckFailed, exitCodeOf, EXIT } from '../lib/errors.js';
import { windowFlags } from '../lib/input/window.js';
import { formatsOf, resolveFormat } from '../lib/output/format.js';
import { renderTable } from '../lib/output/render.js';
import { writeJson } from '../lib/output/json.js';
import { startProgress } from '../lib/output/spinner.js';
import { reconcile, type Discrepancy } from '../lib/reconcile/check.js';
import { planSlices } from '../lib/revenue/slices.js';
import type { RevenueRow, Transaction, WebhookEvent } from '../lib/schemas.js';
import { fetchTarget, resolveTarget } from '../lib/tx/lookup.js';
import { replayCommand } from '../lib/webhooks/replay-command.js';
import { examples, type OptionsOf } from './command.js';

export const command = () =>
  new Command('reconcile')
    .description('cross-check transactions, ledger rows and webhook events for a date range')
    .option('--from <date>', 'start: YYYY-MM-DD or RFC 3339, inclusive')
    .option('--to <date>', 'end: YYYY-MM-DD or RFC 3339, inclusive')
    .option('--tx <id>', 'one transaction only (id or its first 8+ characters): from its creation to now unless --from/--to')
    .option('--ref <merchant_reference>', 'one transaction only, by merchant reference')
    .addHelpText(
      'after',
      examples('offramp reconcile --from 2026-10-01 --to 2026-10-31', 'offramp reconcile --from 2026-11-01 --to 2026-11-22 --json', 'offramp reconcile --ref order-1042'),
    );

const PARALLEL = 4;

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const { io } = ctx;
  const format = resolveFormat(ctx.globals, formatsOf('reconcile'));
  const only = await resolveTarget(ctx, opts.tx, opts.ref, { name: '--tx', optional: true });
  const given = !only || opts.from !== undefined || opts.to !== undefined ? await windowFlags(opts, ctx) : undefined;
  const own = only ? await fetchTarget(ctx, only) : undefined;
  const window = given ?? { from: new Date(own!.created_at), to: ctx.now() };
  const api = await ctx.api();
  const onlyId = own?.id;
  const toMs = window.to.getTime();
  const from = window.from.toISOString();
  const to = window.to.toISOString();

  const transactions: Transaction[] = [];
  const ledger: RevenueRow[] = [];
  let ledgerRowsRead = 0;
  const events: WebhookEvent[] = [];
  let eventsRead = 0;
  const earlier = new Map<string, Transaction | null>();
  const progress = await startProgress(ctx, 'reading transactions');
  try {
    if (own) transactions.push(own);
    else for await (const tx of api.transactions.all({ from, to })) progress.count(transactions.push(tx));
    const inWindow = new Set(transactions.map((t) => t.id));

    // Ledger: the window's rows, and later rows of the window's transactions.
    progress.step('reading the ledger');
    const ledgerEnd = new Date(Math.max(toMs, ctx.now().getTime()));
    const limit = pLimit(PARALLEL);
    await Promise.all(
      planSlices({ from: window.from, to: ledgerEnd }, PARALLEL).map((slice) =>
        limit(async () => {
          for await (const row of api.revenue.all({ from: slice.from.toISOString(), to: slice.to.toISOString() })) {
            progress.count(++ledgerRowsRead);
            if (inWindow.has(row.transaction_id) || (onlyId === undefined && Date.parse(row.ts) <= toMs)) ledger.push(row);
          }
        }),
      ),
    );

    progress.step('reading webhook events');
    for await (const e of api.webhooks.all({ from, ...(onlyId !== undefined ? { transaction_id: onlyId } : {}) })) {
      progress.count(++eventsRead);
      if (inWindow.has(e.aggregate_id)) events.push(e);
    }

    // Ledger rows in the window for transactions created before it.
    const outside = [...new Set(ledger.filter((r) => !inWindow.has(r.transaction_id)).map((r) => r.transaction_id))];
    if (outside.length > 0) progress.step('reading earlier transactions with ledger rows in the window', outside.length);
    await Promise.all(
      outside.map((id) =>
        limit(async () => {
          try {
            earlier.set(id, await transactionById(api, id));
          } catch (err) {
            if (exitCodeOf(err) !== EXIT.notFound) throw err;
            earlier.set(id, null);
          }
          progress.count(earlier.size);
        }),
      ),
    );
  } finally {
    progress.stop();
  }

  const delivery = { delivered: api.service.deliveredStatus ?? DEFAULT_DELIVERED_STATUS, failed: api.service.failedStatus ?? DEFAULT_FAILED_STATUS };
  const discrepancies = reconcile({ transactions, ledger, events, earlier, delivery, replayCommand: (ids) => replayCommand(ctx.globals, ids) });
  const undelivered = discrepancies.flatMap((d) => (d.kind === 'event_not_delivered' && d.event_id ? [d.event_id] : []));
  const replayAll = undelivered.length > 0 ? replayCommand(ctx.globals, undelivered) : null;
  const checked = { transactions: transactions.length + earlier.size, ledger_rows: ledger.length, events: events.length };

  if (format === 'json') {
    writeJson(io, { from, to, clean: discrepancies.length === 0, checked, discrepancies, replay_command: replayAll });
  } else if (discrepancies.length > 0) {
    renderTable(io, [
      { header: 'TRANSACTION', value: (d: Discrepancy) => d.transaction_id, fit: { min: 9, giveWay: 'first' } },
      { header: 'REFERENCE', value: (d) => d.merchant_reference, fit: { min: 8, drop: 2, cut: 'middle' } },
      { header: 'PROBLEM', value: (d) => d.kind.replace(/_/g, ' '), fit: { min: 14 } },
      { header: 'DETAIL', value: (d) => d.detail, fit: { min: 16 } },
      // The whole fix is printed below the table as well, and `--json` carries it.
      { header: 'FIX', value: (d) => d.fix, fit: { min: 12, drop: 1 } },
    ], discrepancies);
  }
  const scope = `${checked.transactions} transaction${checked.transactions === 1 ? '' : 's'}, ${checked.ledger_rows} ledger row${checked.ledger_rows === 1 ? '' : 's'} and ${checked.events} webhook event${checked.events === 1 ? '' : 's'} (read ${ledgerRowsRead} rows and ${eventsRead} events)`;
  if (discrepancies.length === 0) return io.err(`Clean: ${scope} agree for ${from} … ${to}.`);
  if (format !== 'json' && replayAll) io.err(`Redeliver every undelivered event: ${replayAll}`);
  const txCount = new Set(discrepancies.map((d) => d.transaction_id)).size;
  throw new CheckFailed(
    `${discrepancies.length} discrepanc${discrepancies.length === 1 ? 'y' : 'ies'} in ${txCount} transaction${txCount === 1 ? '' : 's'} (checked ${scope})`,
  );
}
