// offramp config path: where the config file lives (data: stdout).
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { examples, type OptionsOf } from '../command.js';

export const command = () =>
  new Command('path').description('print where the config file lives').addHelpText('after', examples('offramp config path', 'chmod 600 "$(offramp config path)"'));

export async function run(_opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  resolveFormat(ctx.globals, formatsOf('config path'));
  // Not by opening the config file: the path is known even when the file cannot be read.
  const path = (await import('../../lib/config/file.js')).configPath(ctx.env);
  ctx.io.out(ctx.globals.json ? `${JSON.stringify({ path })}\n` : `${path}\n`);
}
