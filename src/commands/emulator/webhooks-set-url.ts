// offramp emulator webhooks set-url: no restart and nothing of the emulator's state lost;
// deliveries waiting for a retry go to the new URL.
import { Argument, Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import { webhookUrl } from '../../lib/webhooks/url.js';
import { writeJson } from '../../lib/output/json.js';
import { examples, withArguments, type OptionsOf } from '../command.js';
import { controlTarget, type ControlFlags } from '../../lib/emulator/control-client.js';
import { displayUrl } from '../../lib/client/url.js';
import { endpointJson, writeEndpoint } from '../../lib/emulator/webhook-endpoint.js';

export const command = () =>
  withArguments(new Command<[], {}, ControlFlags>('set-url'), new Argument('<url>', 'http:// or https:// URL to deliver to'))
    .description('deliver webhooks to URL from now on (no restart)')
    .option('--secret <secret>', 'sign with this secret from now on (default: keep the one in use)')
    .addHelpText(
      'after',
      examples('offramp emulator webhooks set-url http://127.0.0.1:3000/webhooks', 'offramp emulator webhooks set-url http://127.0.0.1:3000/webhooks --secret "$OFFRAMP_WEBHOOK_SECRET"'),
    );

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const url = webhookUrl(opts.url ?? '', 'URL').toString();
  if (opts.secret !== undefined && (opts.secret === '' || /\s/.test(opts.secret))) throw new UsageError('--secret: give a secret without spaces');
  ctx.io.addSecret(opts.secret);
  const target = await controlTarget(ctx, opts.adminToken);
  const set = await writeEndpoint(ctx, target, { url, ...(opts.secret !== undefined ? { secret: opts.secret } : {}) });
  if (ctx.globals.json) return writeJson(ctx.io, endpointJson(set));
  ctx.io.print(
    `webhooks: delivered to ${displayUrl(url, { query: false })}, signed with ${opts.secret !== undefined ? 'the given secret' : 'the secret in use'} (${set.signature_scheme})` +
      `${set.previous_url ? `; was ${displayUrl(set.previous_url, { query: false })}` : '; was none'}`,
  );
}
