// The program a run needs. A command line that names its top-level command loads that
// command's module alone: loading every command's module (program.ts) costs more than
// the whole run of a quick command such as `tx get` needs (BENCHMARKS.md, "Startup").
// `offramp --help`, `help X`, no command and a typo get the whole program.
import type { OutputConfiguration } from '@commander-js/extra-typings';
import { build, type Runtime } from './command.js';
import { addTopLevel, commandWord, newProgram, type Program } from './globals.js';
import type { TOP_LEVEL } from './program.js';

type Modules = typeof TOP_LEVEL;

/** Each top-level command's module by name, loaded when a run names it: the same as program.ts's, or tsc says so. */
const BRANCHES: { [K in keyof Modules]: () => Promise<Modules[K]> } = {
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

export async function loadProgram(runtime: Runtime, output: OutputConfiguration, argv: readonly string[]): Promise<Program> {
  const program = newProgram(output);
  const word = commandWord(program, argv);
  if (word === undefined || !Object.hasOwn(BRANCHES, word)) return (await import('./program.js')).createProgram(runtime, output);
  addTopLevel(program, build(await BRANCHES[word as keyof Modules](), runtime));
  return program;
}
