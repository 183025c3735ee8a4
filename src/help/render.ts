// Build step: renders the help snapshot (see snapshot.ts) through commander itself, from
// the same command tree `offramp` runs, so the two cannot disagree.
import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { createProgram } from '../commands/load.js';
import { DEFAULT_HELP_WIDTH, type HelpSnapshot } from './snapshot.js';

/** Wider than any line of help: nothing wraps. */
const UNWRAPPED = 10_000;

export async function renderHelpSnapshot(): Promise<HelpSnapshot> {
  let width = DEFAULT_HELP_WIDTH;
  let text = '';
  const program = await createProgram(
    { run: async () => undefined },
    { writeOut: (s) => void (text += s), writeErr: (s) => void (text += s), getOutHelpWidth: () => width, getOutHasColors: () => false },
  );
  const render = (cmd: Command, columns: number): string => {
    width = columns;
    text = '';
    cmd.outputHelp();
    return text;
  };

  const snapshot: HelpSnapshot = {};
  const visit = (cmd: Command, path: string[]) => {
    const narrow = render(cmd, DEFAULT_HELP_WIDTH);
    const wide = render(cmd, UNWRAPPED);
    // Nothing wraps at the longest line's width; below it, find where wrapping starts.
    let wideFrom = Math.max(...wide.split('\n').map((line) => line.length));
    if (render(cmd, wideFrom) !== wide) throw new Error(`help for "${path.join(' ')}" wraps at ${wideFrom} columns`);
    while (wideFrom > 1 && render(cmd, wideFrom - 1) === wide) wideFrom--;
    snapshot[path.join(' ')] = { narrow, ...(wide !== narrow ? { wide } : {}), wideFrom };
    for (const sub of cmd.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return snapshot;
}
