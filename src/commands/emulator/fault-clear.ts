// offramp emulator fault clear: removes every fault rule (--fault-rate, a start option, stays).
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { writeJson } from '../../lib/output/json.js';
import { examples, type OptionsOf } from '../command.js';
import { callControl, controlTarget, type ControlFlags } from '../../lib/emulator/control-client.js';

export const command = () =>
  new Command<[], {}, ControlFlags>('clear').description('remove every fault rule').addHelpText('after', examples('offramp emulator fault clear'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const target = await controlTarget(ctx, opts.adminToken);
  const answer = await callControl(ctx, target, { method: 'DELETE', path: '/faults' });
  const { cleared } = answer.data as { cleared: number };
  if (ctx.globals.json) return writeJson(ctx.io, answer.data);
  ctx.io.out(`cleared ${cleared} fault rule${cleared === 1 ? '' : 's'}\n`);
}
