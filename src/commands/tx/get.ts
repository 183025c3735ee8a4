// offramp tx get ID | offramp tx get --ref MERCHANT_REFERENCE
// The full snapshot, grouped as transaction / deposit / partner fields; `—` for null.
import type { Context } from '../../lib/context.js';
import { resolveFormat } from '../../lib/output/format.js';
import { writeJson } from '../../lib/output/json.js';
import { fetchTarget, resolveTarget } from '../../lib/tx/lookup.js';

export type GetOptions = { id?: string; ref?: string };

export async function run(opts: GetOptions, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals);
  const target = await resolveTarget(ctx, opts.id, opts.ref);
  const tx = await fetchTarget(ctx, target);
  if (format === 'json') writeJson(ctx.io, tx);
  else (await import('../../lib/tx/render.js')).renderTransaction(ctx.io, tx, ctx.now(), 'snapshot');
}
