// offramp profile list: every profile, keys masked, where each key lives; the current one marked.
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { renderTable } from '../../lib/output/render.js';
import { writeJson } from '../../lib/output/json.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { examples, type OptionsOf } from '../command.js';
import { maskedView } from './show.js';

export const command = () =>
  new Command('list').description('list profiles (keys masked)').addHelpText('after', examples('offramp profile list', 'offramp profile list --json'));

export async function run(_opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const data = (await ctx.config()).read();
  const rows = Object.entries(data.profiles).map(([name, p]) => maskedView(name, p, data.current));
  if (resolveFormat(ctx.globals, formatsOf('profile list')) === 'json') return writeJson(ctx.io, rows);
  if (rows.length === 0) return ctx.io.err('No profiles yet. Add one with: offramp profile add dev --env local');
  // On an 80-column terminal a long base URL is cut at its end, which every base URL shares
  // (/api/v1/partner), so its host shows; a long name is cut too; the masked keys are short
  // and stay whole.
  renderTable(ctx.io, [
    { header: '', value: (r) => (r.current ? '*' : ' ') },
    { header: 'NAME', value: (r) => r.name, fit: { min: 12 } },
    { header: 'ENV', value: (r) => r.env },
    { header: 'BASE URL', value: (r) => r.base_url, fit: { min: 24 } },
    // A masked key is one in the file; the others say where theirs is.
    { header: 'API KEY', value: (r) => r.api_key ?? (r.api_key_in === 'none' ? '—' : r.api_key_in) },
    { header: 'WEBHOOK SECRET', value: (r) => r.webhook_secret },
  ], rows);
}
