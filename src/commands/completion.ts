// offramp completion bash|zsh|fish: prints the completion script, generated from the
// whole program (the same commands that parse the command line), so it cannot drift. The
// program is the one this command stands in (load.ts gives `completion` the whole of it),
// reached from the command itself rather than imported: the program imports this module.
import { Argument, Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { describeProgram } from '../lib/completion/spec.js';
import { SCRIPTS } from '../lib/completion/scripts.js';
import { examples, readsNoSecret, rootOf, withArguments, type Runner } from './command.js';

export type Shell = keyof typeof SCRIPTS;

export const command = (runner: Runner) => {
  const cmd = withArguments(new Command('completion'), new Argument('<shell>', 'shell').choices(Object.keys(SCRIPTS) as Shell[]))
    .description('print a shell completion script')
    .addHelpText('after', examples('offramp completion bash > /etc/bash_completion.d/offramp', 'offramp completion fish > ~/.config/fish/completions/offramp.fish'));
  readsNoSecret.add(cmd);
  return cmd.action(() =>
    runner.run(cmd, async (ctx) => {
      ctx.io.out(completionScript(rootOf(cmd), cmd.processedArgs[0]));
    }),
  );
};

export function completionScript(program: CommandUnknownOpts, shell: Shell): string {
  return SCRIPTS[shell](describeProgram(program));
}
