// The `offramp` program: its top-level commands in one table, in the order and under the
// headings of `offramp --help`. A command line that names its top-level command loads that
// command's module alone: loading every command's module costs more than the whole run of a
// quick command such as `tx get` needs (BENCHMARKS.md, "Startup"). `offramp --help`,
// `help X`, no command, a typo and `completion` (which describes every command) get the
// whole program; so do the help snapshot and the shell completions.
import type { OutputConfiguration } from '@commander-js/extra-typings';
import { build, type Runner } from './command.js';
import { addTopLevel, commandWord, newProgram, type Program } from './globals.js';

/** The top-level commands by name, in the order of `offramp --help`, each with its module. */
export const TOP_LEVEL = {
  quote: () => import('./quote.js'),
  tx: () => import('./tx/index.js'),
  revenue: () => import('./revenue/index.js'),
  reconcile: () => import('./reconcile.js'),
  webhooks: () => import('./webhooks/index.js'),
  simulate: () => import('./simulate/index.js'),
  smoke: () => import('./smoke.js'),
  conform: () => import('./conform.js'),
  emulator: () => import('./emulator/index.js'),
  demo: () => import('./demo.js'),
  profile: () => import('./profile/index.js'),
  config: () => import('./config/index.js'),
  api: () => import('./api.js'),
  openapi: () => import('./openapi.js'),
  doctor: () => import('./doctor.js'),
  completion: () => import('./completion.js'),
  __complete: () => import('./complete.js'),
};
type Name = keyof typeof TOP_LEVEL;

/** The headings of `offramp --help`, each above the command it starts with. */
const HEADINGS: Partial<Record<Name, string>> = {
  quote: 'Transactions:',
  revenue: 'Finance:',
  webhooks: 'Webhooks:',
  simulate: 'Sandbox:',
  profile: 'Setup:',
};

export async function createProgram(runner: Runner, output: OutputConfiguration = {}): Promise<Program> {
  const program = newProgram(output);
  const names = Object.keys(TOP_LEVEL) as Name[];
  const modules = await Promise.all(names.map((name) => TOP_LEVEL[name]()));
  names.forEach((name, i) => {
    const heading = HEADINGS[name];
    if (heading) program.commandsGroup(heading);
    addTopLevel(program, build(modules[i]!, runner));
  });
  return program;
}

export async function loadProgram(runner: Runner, output: OutputConfiguration, argv: readonly string[]): Promise<Program> {
  const program = newProgram(output);
  const word = commandWord(program, argv);
  // `completion` needs the whole program to run: it describes it.
  if (word === undefined || !Object.hasOwn(TOP_LEVEL, word) || word === 'completion') return createProgram(runner, output);
  addTopLevel(program, build(await TOP_LEVEL[word as Name](), runner));
  return program;
}
