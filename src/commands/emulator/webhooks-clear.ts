// offramp emulator webhooks clear: each new event's one attempt fails at once, as without
// --webhook-url; the secret stays.
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { writeJson } from '../../lib/output/json.js';
import { examples, type OptionsOf } from '../command.js';
import { controlTarget, type ControlFlags } from '../../lib/emulator/control-client.js';
import { displayUrl } from '../../lib/client/url.js';
import { endpointJson, writeEndpoint } from '../../lib/emulator/webhook-endpoint.js';

export const command = () =>
  new Command<[], {}, ControlFlags>('clear').description('stop delivering webhooks (events are still recorded)').addHelpText('after', examples('offramp emulator webhooks clear'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const target = await controlTarget(ctx, opts.adminToken);
  const set = await writeEndpoint(ctx, target, { url: null });
  if (ctx.globals.json) return writeJson(ctx.io, endpointJson(set));
  ctx.io.print(`webhooks: recorded only (no endpoint)${set.previous_url ? `; was ${displayUrl(set.previous_url, { query: false })}` : '; there was none'}`);
}
