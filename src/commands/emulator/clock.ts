// offramp emulator clock advance (docs/emulator.md, "Control plane"). The emulator keeps the
// offset (and its state file too), so time moved stays moved.
import { Argument, Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import { writeJson } from '../../lib/output/json.js';
import type { AdvanceResult } from '../../emulator/index.js';
import { parseDuration } from '../../lib/input/duration.js';
import { formatDuration } from '../../lib/output/time.js';
import { examples, withArguments, type OptionsOf } from '../command.js';
import { callControl, controlTarget, type ControlFlags } from '../../lib/emulator/control-client.js';

export const command = () =>
  withArguments(new Command<[], {}, ControlFlags>('advance'), new Argument('<duration>', 'how far: 31m, 1h30m, 90s, 2d'))
    .description('move business time forward; what became due happens (quotes and deposits expire, with their webhooks)')
    .addHelpText('after', examples('offramp emulator clock advance 31m', 'offramp emulator clock advance 1h --json'));

export type Options = OptionsOf<typeof command>;

export async function run(opts: Options, ctx: Context): Promise<void> {
  const ms = parseDuration(opts.duration ?? '');
  if (typeof ms === 'string') throw new UsageError(`clock advance: ${ms}`);
  const target = await controlTarget(ctx, opts.adminToken);
  const answer = await callControl(ctx, target, { method: 'POST', path: '/clock', json: { advance_ms: ms } });
  const result = answer.data as AdvanceResult;
  if (ctx.globals.json) return writeJson(ctx.io, result);
  const expired = result.expired_transactions;
  ctx.io.print(
    `clock advanced ${opts.duration!.trim()}: emulator time ${result.now} (${formatDuration(result.offset_ms)} ahead of real time); ` +
      `${expired} transaction${expired === 1 ? '' : 's'} expired`,
  );
}

