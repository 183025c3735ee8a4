// offramp config path: where the config file lives (data: stdout).
import type { Context } from '../../lib/context.js';
import { resolveFormat } from '../../lib/output/format.js';

export async function run(_opts: object, ctx: Context): Promise<void> {
  resolveFormat(ctx.globals, ['table', 'json']);
  // Not through the store: the path is known even when the file cannot be read.
  const path = (await import('../../lib/config/store.js')).configPath(ctx.env);
  ctx.io.out(ctx.globals.json ? `${JSON.stringify({ path })}\n` : `${path}\n`);
}
