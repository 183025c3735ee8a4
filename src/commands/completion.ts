// offramp completion bash|zsh|fish: prints the completion script, generated from the
// whole program (the same commands that parse the command line), so it cannot drift.
import { Argument, Command } from '@commander-js/extra-typings';
import type { Context } from '../lib/context.js';
import { describeProgram } from '../lib/completion/spec.js';
import { scriptFor } from '../lib/completion/scripts.js';
import { examples, withArguments, type OptionsOf } from './command.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export const command = () =>
  withArguments(new Command('completion'), new Argument('<shell>', 'shell').choices(SHELLS))
    .description('print a shell completion script')
    .addHelpText('after', examples('offramp completion bash > /etc/bash_completion.d/offramp', 'offramp completion fish > ~/.config/fish/completions/offramp.fish'));

/** The script for `shell`. The program is imported here, not at the top: it holds this command. */
export async function completionScript(shell: Shell): Promise<string> {
  const { createProgram } = await import('./program.js');
  return scriptFor(shell, describeProgram(createProgram({ run: async () => undefined })));
}

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  ctx.io.out(await completionScript(opts.shell));
}
