// offramp emulator state export FILE: the emulator's whole state, in the --state file
// format, written to FILE (0600: it holds every partner's records) or to stdout for `-`.
import { Argument, Command } from '@commander-js/extra-typings';
import { writeAside } from '../../lib/fs/atomic.js';
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import { examples, withArguments, type OptionsOf } from '../command.js';
import { callControl, controlTarget, type ControlFlags } from '../../lib/emulator/control-client.js';

export const command = () =>
  withArguments(new Command<[], {}, ControlFlags>('export'), new Argument('<file>', 'where to write'))
    .description('write the whole state to FILE (- for stdout)')
    .addHelpText('after', examples('offramp emulator state export before.state'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const file = opts.file ?? '';
  if (file.trim() === '') throw new UsageError('state export: give a file to write (or - for stdout)');
  const target = await controlTarget(ctx, opts.adminToken);
  // The document may be as large as the emulator takes back, far above the cap on an API answer.
  const { STATE_BODY_LIMIT } = await import('../../lib/emulator-defaults.js');
  const answer = await callControl(ctx, target, { method: 'GET', path: '/state', maxBytes: STATE_BODY_LIMIT });
  if (file === '-') return ctx.io.out(answer.text);
  // Written aside and renamed: an interrupted export never leaves half a state under FILE.
  try {
    await writeAside(file, answer.text, 0o600);
  } catch (err) {
    throw new UsageError(`state export: cannot write ${file}: ${(err as Error).message}`);
  }
  ctx.io.err(`state written to ${file} (${Buffer.byteLength(answer.text)} bytes)`);
}
