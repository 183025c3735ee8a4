// offramp webhooks replay (docs/webhooks.md, "Replaying"). An answer about another event than
// the one asked is that event's failure (ANSWER_MISMATCH): the table never shows another
// event's result under the id that was asked.
import { Argument, Command } from '@commander-js/extra-typings';
import pLimit from 'p-limit';
import { replayEvent } from '../../lib/client/checked-calls.js';
import type { Context } from '../../lib/context.js';
import { CliError, describeError, EXIT, UsageError, exitCodeOf, type ExitCode } from '../../lib/errors.js';
import { parseIntFlag } from '../../lib/input/values.js';
import { eventIdFromPrefix, filterTransactionId } from '../../lib/tx/lookup.js';
import { parseIdOrPrefix } from '../../lib/tx/short-id.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { renderTable } from '../../lib/output/render.js';
import { counted, startProgress } from '../../lib/output/spinner.js';
import { writeJson } from '../../lib/output/json.js';
import type { ReplayResult } from '../../lib/schemas.js';
import { DEFAULT_FAILED_STATUS } from '../../lib/config/profile.js';
import { eventFilters, openValue } from '../../lib/webhooks/filters.js';
import { DELIVERY_STATUSES } from '../../lib/vocabulary.js';
import { replayCommand } from '../../lib/webhooks/replay-command.js';
import { eventIdColumn, reasonColumn, transactionColumn, typeColumn } from '../../lib/webhooks/columns.js';
import { examples, withArguments, type OptionsOf } from '../command.js';
import { confirm } from '../../lib/config/production.js';

export const command = () =>
  withArguments(new Command('replay'), new Argument('[event_ids...]', 'events to replay (ids or their first 8+ characters)'))
    .description('requeue events for redelivery (same event ids)')
    .option('--failed', 'replay every event whose delivery failed (narrow with --tx/--ref/--from/--to)')
    .option('--tx <id>', "replay this transaction's events (id or its first 8+ characters); with --failed, its failed ones")
    .option('--ref <merchant_reference>', "replay the events of the transaction with this reference; with --failed, its failed ones")
    .option('--from <date>', 'with --failed, --tx or --ref: created at or after')
    .option('--to <date>', 'with --failed, --tx or --ref: created at or before')
    .option('--failed-status <value>', "the delivery_status --failed means (default: the profile's, else failed)")
    .option('--concurrency <n>', 'replays sent at once', '4')
    .addHelpText('after', examples('offramp webhooks replay 5d0e2f41 91aa07c3', 'offramp webhooks replay --ref order-1042', 'offramp webhooks replay --failed --from 2026-11-01'));

export type Options = OptionsOf<typeof command>;

type Target = { event_id: string; event_type?: string; aggregate_id?: string };
/** What one replay request came to: the service's answer, or the error instead. */
type ReplayAttempt = { target: Target; result?: ReplayResult; error?: unknown };

export async function run(opts: Options, ctx: Context): Promise<void> {
  const { io } = ctx;
  const format = resolveFormat(ctx.globals, formatsOf('webhooks replay'));
  const given = opts.eventIds ?? [];
  // --tx or --ref alone chooses every event of that transaction; --failed narrows to the failed ones.
  const byFilter = opts.failed === true || opts.tx !== undefined || opts.ref !== undefined;
  if (given.length > 0 && byFilter) throw new UsageError('give event ids, or --failed / --tx / --ref, not both');
  if (given.length === 0 && !byFilter) throw new UsageError('nothing to replay: give one or more EVENT_IDs, --failed, or --tx / --ref');
  if (!byFilter && (opts.from !== undefined || opts.to !== undefined)) throw new UsageError('--from and --to narrow --failed, --tx or --ref; with event ids, leave them out');
  if (!opts.failed && opts.failedStatus !== undefined) throw new UsageError('--failed-status goes with --failed');
  const asked = given.map((id) => parseIdOrPrefix(id, 'EVENT_ID'));
  const filters = byFilter ? eventFilters({ from: opts.from, to: opts.to }) : undefined;
  const flagStatus = opts.failedStatus !== undefined ? openValue(opts.failedStatus, '--failed-status') : undefined;
  const concurrency = parseIntFlag(opts.concurrency ?? 4, '--concurrency', 1, 16);
  const api = await ctx.api();
  if (filters) {
    const txId = await filterTransactionId(ctx, opts.tx, opts.ref);
    if (txId !== undefined) filters.transaction_id = txId;
  }

  // A short id is looked for among the events the service lists first (docs/transactions.md, "Short ids").
  const ids = new Set<string>();
  for (const n of asked) ids.add(('id' in n ? n.id : await eventIdFromPrefix(api, n.prefix)).toLowerCase());
  const targets: Target[] = [...ids].map((event_id) => ({ event_id }));
  if (filters) {
    // The spec leaves delivery_status values open: which one means "failed" is a setting.
    const failed = opts.failed ? (flagStatus ?? api.service.failedStatus ?? DEFAULT_FAILED_STATUS) : undefined;
    const statuses = new Set<string>();
    // Only events the CLI itself saw match every filter are replayed (the API layer drops
    // the rest), whatever the service did with the parameters.
    const events = api.webhooks.all({ ...filters, ...(failed !== undefined ? { delivery_status: failed } : {}) }, { onReceived: (page) => page.forEach((e) => statuses.add(e.delivery_status)) });
    for await (const e of counted(ctx, failed !== undefined ? 'finding failed events' : 'finding events', events)) targets.push({ event_id: e.event_id, event_type: e.event_type, aggregate_id: e.aggregate_id });
    if (targets.length === 0) {
      const unknown = [...statuses].filter((s) => failed !== undefined && s !== failed && !(DELIVERY_STATUSES as readonly string[]).includes(s));
      if (unknown.length > 0) {
        throw new CliError(
          `cannot tell which events failed: none has delivery_status "${failed}", and the service also reports ${unknown.map((s) => `"${s}"`).join(', ')}`,
          'UNKNOWN_STATUS',
          EXIT.failure,
          'if one of them means failed, pass --failed-status VALUE, or let `offramp conform --save` record it in the profile',
        );
      }
      io.err(`No events${failed !== undefined ? ` with delivery_status "${failed}"` : ''} match; nothing to replay.`);
      if (format === 'json') writeJson(io, []);
      return;
    }
  }
  const chosen = `${targets.length} webhook event${targets.length === 1 ? '' : 's'}`;
  await confirm(ctx, `replay ${chosen}`, `${chosen} not replayed`);

  const limit = pLimit(concurrency);
  const progress = await startProgress(ctx, 'replaying', targets.length);
  let done = 0;
  const replays: ReplayAttempt[] = await Promise.all(
    targets.map((target) =>
      limit(async () => {
        try {
          return { target, result: await replayEvent(api, target.event_id) };
        } catch (error) {
          return { target, error };
        } finally {
          progress.count(++done);
        }
      }),
    ),
  ).finally(() => progress.stop());

  const failures = replays.filter((o) => o.error !== undefined);
  if (format === 'json') {
    writeJson(io, replays.flatMap((o) => (o.result ? [o.result] : [])));
  } else if (failures.length < replays.length) {
    // When nothing replayed, the error on stderr names every event and stdout stays empty.
    renderTable<ReplayAttempt>(io, [
      eventIdColumn((o) => o.target.event_id),
      typeColumn((o) => o.result?.event_type ?? o.target.event_type),
      transactionColumn((o) => o.result?.aggregate_id ?? o.target.aggregate_id, 2),
      { header: 'ATTEMPTS', value: (o) => o.result?.attempts, fit: { drop: 1 } },
      reasonColumn('PUBLISH STATUS', (o) => o.result?.publish_status ?? `not replayed: ${describeError(o.error)}`, 24),
    ], replays);
  }
  if (failures.length === 0) {
    if (format !== 'json') io.err(`Replay scheduled for ${replays.length} event${replays.length === 1 ? '' : 's'}.`);
    return;
  }
  const codes = new Set(failures.map((f) => exitCodeOf(f.error)));
  const exitCode: ExitCode = codes.size === 1 ? [...codes][0]! : EXIT.failure;
  const errorCodes = new Set(failures.map((f) => (f.error instanceof CliError ? f.error.code : 'INTERNAL')));
  const named = failures.map((f) => `${f.target.event_id} (${describeError(f.error)})`).join(', ');
  throw new CliError(
    `${failures.length} of ${replays.length} event${replays.length === 1 ? '' : 's'} did not replay: ${named}`,
    errorCodes.size === 1 ? [...errorCodes][0]! : 'REPLAY_FAILED',
    exitCode,
    failures.length < replays.length
      ? `the others were scheduled; retry just these with: ${replayCommand(ctx.globals, failures.map((f) => f.target.event_id))}`
      : failures.length === 1 && failures[0]!.error instanceof CliError
        ? failures[0]!.error.hint
        : undefined,
  );
}

