// offramp config path: where the config file lives (data: stdout).
import type { Context } from '../../lib/context.js';

export async function run(_opts: object, ctx: Context): Promise<void> {
  const path = (await ctx.config()).path;
  ctx.io.out(ctx.globals.json ? `${JSON.stringify({ path })}\n` : `${path}\n`);
}
