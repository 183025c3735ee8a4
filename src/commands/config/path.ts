// offramp config path: where the config file lives (data: stdout).
import type { Context } from '../../lib/context.js';
import { resolveFormat } from '../../lib/output/format.js';

export async function run(_opts: object, ctx: Context): Promise<void> {
  resolveFormat(ctx.globals, ['table', 'json']);
  const path = (await ctx.config()).path;
  ctx.io.out(ctx.globals.json ? `${JSON.stringify({ path })}\n` : `${path}\n`);
}
