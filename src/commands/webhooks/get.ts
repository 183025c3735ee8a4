// offramp webhooks get: one event's delivery telemetry. The spec is explicit that this read
// "reports delivery state only and does not return the payload", so the table says where a
// payload can be found instead (a listener's store, or a replay to an endpoint that keeps it).
import { Argument, Command } from '@commander-js/extra-typings';
import { webhookEvent } from '../../lib/client/checked-calls.js';
import type { Context } from '../../lib/context.js';
import { ask, validator } from '../../lib/input/values.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { writeJson } from '../../lib/output/json.js';
import { timeCell } from '../../lib/output/time.js';
import { eventIdFromPrefix } from '../../lib/tx/lookup.js';
import { idOrPrefixProblem, parseIdOrPrefix } from '../../lib/tx/short-id.js';
import { examples, withArguments, type OptionsOf } from '../command.js';

export const command = () =>
  withArguments(new Command('get'), new Argument('[event_id]', 'event id or its first 8+ characters (asked for on a terminal when left out)'))
    .description("show an event's delivery telemetry (the service keeps no payload)")
    .addHelpText('after', examples('offramp webhooks get 5d0e2f41'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals, formatsOf('webhooks get'));
  const given = await ask(ctx, 'EVENT_ID', opts.eventId, (p, c) => p.input({ message: 'Webhook event id', validate: validator(idOrPrefixProblem) }, c));
  const named = parseIdOrPrefix(given, 'EVENT_ID');
  const api = await ctx.api();
  // A short id is looked for among the events the service lists first (docs/transactions.md, "Short ids").
  const id = 'id' in named ? named.id : await eventIdFromPrefix(api, named.prefix);
  const e = await webhookEvent(api, id);
  if (format === 'json') return writeJson(ctx.io, e);
  const { renderRecord } = await import('../../lib/output/render.js');
  const now = ctx.now();
  const tty = ctx.io.stdoutIsTTY;
  renderRecord(ctx.io, [
    {
      title: `Webhook event ${e.event_id}`,
      fields: [
        ['type', e.event_type],
        ['transaction', e.aggregate_id],
        ['delivery', e.delivery_status],
        ['attempts', e.attempts],
        ['last error', e.last_error],
        ['created', timeCell(e.created_at, now, tty)],
        ['updated', timeCell(e.updated_at, now, tty)],
      ],
    },
  ]);
  ctx.io.err('note: the service keeps delivery telemetry only, not the payload. To see the body, receive it:');
  ctx.io.err(`  offramp webhooks listen --store events.ndjson   (then: offramp webhooks replay ${e.event_id})`);
}
