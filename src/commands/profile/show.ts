// offramp profile show [NAME]: one profile (default: the current one), secrets masked.
import { maskSecret } from '../../lib/config/profile.js';
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import { renderRecord } from '../../lib/output/render.js';
import { writeJson } from '../../lib/output/json.js';
import { resolveFormat } from '../../lib/output/format.js';

export async function run(opts: { name?: string }, ctx: Context): Promise<void> {
  const store = await ctx.config();
  const data = store.read();
  const name = opts.name ?? ctx.globals.profile ?? ctx.env.OFFRAMP_PROFILE ?? data.current;
  const profile = name ? data.profiles[name] : undefined;
  if (!name || !profile) {
    throw new UsageError(name ? `no profile named "${name}"` : 'no current profile', 'list them with: offramp profile list');
  }
  const view = {
    name,
    current: name === data.current,
    env: profile.env,
    base_url: profile.baseUrl,
    api_key: maskSecret(profile.apiKey),
    webhook_secret: profile.webhookSecret ? maskSecret(profile.webhookSecret) : null,
    config_path: store.path,
  };
  if (resolveFormat(ctx.globals) === 'json') return writeJson(ctx.io, view);
  renderRecord(ctx.io, [
    {
      fields: [
        ['name', `${view.name}${view.current ? ' (current)' : ''}`],
        ['env', view.env === 'production' ? 'production  (confirmations on; simulate refused)' : view.env],
        ['base url', view.base_url],
        ['api key', view.api_key],
        ['webhook secret', view.webhook_secret],
        ['config', view.config_path],
      ],
    },
  ]);
}
