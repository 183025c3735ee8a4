// offramp emulator state import: the emulator installs all of the document or nothing; a file
// that is not a state document at all is refused here, before anything is sent.
import { readFile } from 'node:fs/promises';
import { Argument, Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import { writeJson } from '../../lib/output/json.js';
import type { StateSummary } from '../../emulator/index.js';
import { readStdin } from '../../lib/input/stdin.js';
import { examples, withArguments, type OptionsOf } from '../command.js';
import { callControl, controlTarget, type ControlFlags } from '../../lib/emulator/control-client.js';

export const command = () =>
  withArguments(new Command<[], {}, ControlFlags>('import'), new Argument('<file>', 'a state export or --state file'))
    .description('replace the whole state with FILE (- for stdin)')
    .addHelpText('after', examples('offramp emulator state import before.state'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const file = opts.file ?? '';
  if (file.trim() === '') throw new UsageError('state import: give a state file to read (or - for stdin)');
  let text: string;
  try {
    text = file === '-' ? (await readStdin(ctx.io.stdin)).toString('utf8') : await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`state import: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const { STATE_FORMAT } = await import('../../emulator/index.js');
  if (!looksLikeState(text, STATE_FORMAT)) {
    throw new UsageError(`state import: ${file} is not an emulator state (write one with \`offramp emulator state export FILE\`)`);
  }
  const target = await controlTarget(ctx, opts.adminToken);
  const answer = await callControl(ctx, target, { method: 'PUT', path: '/state', raw: text });
  const imported = answer.data as StateSummary;
  if (ctx.globals.json) return writeJson(ctx.io, imported);
  ctx.io.print(
    `state imported: ${imported.partners} partner${imported.partners === 1 ? '' : 's'}, ${imported.transactions} transactions, ` +
      `${imported.events} events, ${imported.ledger_rows} ledger rows${imported.dormant_partners ? ` (${imported.dormant_partners} partners kept dormant: not among the emulator's keys)` : ''}`,
  );
}

function looksLikeState(text: string, format: string): boolean {
  const first = text.slice(0, text.indexOf('\n') < 0 ? 4096 : text.indexOf('\n'));
  try {
    const header = JSON.parse(first) as { k?: unknown; format?: unknown };
    return header.k === 'header' && header.format === format;
  } catch {
    return false;
  }
}
