// offramp completion bash|zsh|fish: prints the completion script, generated from the
// command tree (the same tree that parses the command line), so it cannot drift.
import { Argument, Command } from '@commander-js/extra-typings';
import type { Context } from '../lib/context.js';
import { describeProgram } from '../lib/completion/spec.js';
import { scriptFor } from '../lib/completion/scripts.js';
import { examples, withArguments, type OptionsOf } from './command.js';
import { createProgram } from './program.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export const command = () =>
  withArguments(new Command('completion'), new Argument('<shell>', 'shell').choices(SHELLS))
    .description('print a shell completion script')
    .addHelpText('after', examples('offramp completion bash > /etc/bash_completion.d/offramp', 'offramp completion fish > ~/.config/fish/completions/offramp.fish'));

export function completionScript(shell: Shell): string {
  const program = createProgram({ run: async () => undefined });
  return scriptFor(shell, describeProgram(program));
}

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  ctx.io.out(completionScript(opts.shell));
}
