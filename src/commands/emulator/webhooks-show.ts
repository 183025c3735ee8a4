// offramp emulator webhooks [show]: where the running emulator delivers now, how it signs, and
// whether a listener (`webhooks listen`, `smoke`) set that URL and still runs. The secret is
// never shown.
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { controlTarget, type ControlFlags } from '../../lib/emulator/control-client.js';
import { displayUrl } from '../../lib/client/url.js';
import { endpointJson, readEndpoint } from '../../lib/emulator/webhook-endpoint.js';
import { writeJson } from '../../lib/output/json.js';
import { renderRecord } from '../../lib/output/render.js';
import { isAlive } from '../../lib/fs/stale.js';
import { examples, type OptionsOf } from '../command.js';

export const command = () =>
  new Command<[], {}, ControlFlags>('show')
    .description('where the emulator delivers webhooks now, its signature scheme, and whether a listener set it')
    .addHelpText('after', examples('offramp emulator webhooks', 'offramp emulator webhooks show --json'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const target = await controlTarget(ctx, opts.adminToken);
  const e = await readEndpoint(ctx, target);
  const by = e.registered_by ?? null;
  const running = by ? isAlive(by.pid) : false;
  if (ctx.globals.json) return writeJson(ctx.io, { ...endpointJson(e), registered_by: by ? { ...by, running } : null });
  const back = by ? (by.previous_url ? `puts back ${displayUrl(by.previous_url, { query: false })}` : 'puts back: record only') : '';
  renderRecord(ctx.io, [
    {
      title: `Webhooks of the emulator at ${target.origin}`,
      fields: [
        ['url', e.url ? displayUrl(e.url, { query: false }) : 'none: events are recorded only'],
        ['signature', `${e.signature_scheme}, with the emulator's secret`],
        [
          'registered by',
          !by
            ? 'no listener (set at start or by `emulator webhooks set-url`)'
            : running
              ? `\`${by.command}\`, pid ${by.pid}, running; ${back} when it stops`
              : `\`${by.command}\`, pid ${by.pid}, no longer running: stale; the next listener ${back.replace('puts', 'will put')}`,
        ],
      ],
    },
  ]);
}
