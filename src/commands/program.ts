// The `offramp` program whole, in the order and under the headings of `offramp --help`: the
// help, the shell completions and the build's help snapshot are made from it. A run that names
// its command loads only that command's module (load.ts).
import type { OutputConfiguration } from '@commander-js/extra-typings';
import * as api from './api.js';
import { build, type Runtime } from './command.js';
import * as complete from './complete.js';
import * as completion from './completion.js';
import * as config from './config/index.js';
import * as conform from './conform.js';
import * as demo from './demo.js';
import * as doctor from './doctor.js';
import * as emulator from './emulator/index.js';
import { addTopLevel, newProgram, type Program } from './globals.js';
import * as openapi from './openapi.js';
import * as profile from './profile/index.js';
import * as quote from './quote.js';
import * as reconcile from './reconcile.js';
import * as revenue from './revenue/index.js';
import * as simulate from './simulate/index.js';
import * as smoke from './smoke.js';
import * as tx from './tx/index.js';
import * as webhooks from './webhooks/index.js';

/** The top-level commands by name, in the order of `offramp --help`. */
export const TOP_LEVEL = {
  quote,
  tx,
  revenue,
  reconcile,
  webhooks,
  simulate,
  smoke,
  conform,
  emulator,
  demo,
  profile,
  config,
  api,
  openapi,
  doctor,
  completion,
  __complete: complete,
};

/** The headings of `offramp --help`, each above the command it starts with. */
const HEADINGS: Partial<Record<keyof typeof TOP_LEVEL, string>> = {
  quote: 'Transactions:',
  revenue: 'Finance:',
  webhooks: 'Webhooks:',
  simulate: 'Sandbox:',
  profile: 'Setup:',
};

export function createProgram(runtime: Runtime, output: OutputConfiguration = {}): Program {
  const program = newProgram(output);
  for (const [name, module] of Object.entries(TOP_LEVEL)) {
    const heading = HEADINGS[name as keyof typeof TOP_LEVEL];
    if (heading) program.commandsGroup(heading);
    addTopLevel(program, build(module, runtime));
  }
  return program;
}
