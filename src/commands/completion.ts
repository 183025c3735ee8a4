// offramp completion bash|zsh|fish: prints the completion script, generated from the
// command tree (the same tree that parses the command line), so it cannot drift.
import type { Context } from '../lib/context.js';
import { describeProgram } from '../lib/completion/spec.js';
import { scriptFor } from '../lib/completion/scripts.js';
import { createProgram } from './program.js';

export type Shell = 'bash' | 'zsh' | 'fish';

export function completionScript(shell: Shell): string {
  const program = createProgram({ run: async () => undefined });
  return scriptFor(shell, describeProgram(program));
}

export async function run(opts: { shell: Shell }, ctx: Context): Promise<void> {
  ctx.io.out(completionScript(opts.shell));
}
