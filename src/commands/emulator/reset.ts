// offramp emulator reset: the key goes in the request body only, never in a printed line.
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import { writeJson } from '../../lib/output/json.js';
import { examples, type OptionsOf } from '../command.js';
import { callControl, controlTarget, type ControlFlags } from '../../lib/emulator/control-client.js';

export const command = () =>
  new Command<[], {}, ControlFlags>('reset')
    .description("forget everything (or one partner's data): as freshly started")
    .option('--partner <key>', 'reset only the partner with this API key')
    .addHelpText('after', examples('offramp emulator reset', 'offramp emulator reset --partner "$OFFRAMP_API_KEY"'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  if (opts.partner !== undefined && (opts.partner.trim() === '' || /\s/.test(opts.partner))) {
    throw new UsageError('--partner: give the API key of the partner to reset');
  }
  ctx.io.addSecret(opts.partner);
  const target = await controlTarget(ctx, opts.adminToken);
  const answer = await callControl(ctx, target, { method: 'POST', path: '/reset', json: opts.partner === undefined ? {} : { partner: opts.partner } });
  if (ctx.globals.json) return writeJson(ctx.io, answer.data);
  ctx.io.out(opts.partner === undefined ? 'emulator reset: every partner, fault rules and the clock\n' : 'emulator reset: that partner’s data\n');
}
