// offramp emulator: the server (serve.ts) and the control commands, in the order its help lists them.
import { group, verb, type Runner } from '../command.js';
import * as serve from './serve.js';
import * as clock from './clock.js';
import * as faultAdd from './fault-add.js';
import * as faultClear from './fault-clear.js';
import * as reset from './reset.js';
import * as stateExport from './state-export.js';
import * as stateImport from './state-import.js';
import * as wait from './wait.js';
import * as webhooksClear from './webhooks-clear.js';
import * as webhooksShow from './webhooks-show.js';
import * as webhooksSetUrl from './webhooks-set-url.js';

export const command = (runner: Runner) => {
  const emulator = verb(serve, runner)
    .addCommand(group('clock', "move the emulator's business time", runner, [clock]))
    .addCommand(verb(reset, runner))
    .addCommand(group('fault', 'targeted faults on API routes or webhook deliveries', runner, [faultAdd, faultClear]))
    .addCommand(group('state', "the emulator's whole state, out and in (the --state file format)", runner, [stateExport, stateImport]))
    .addCommand(group('webhooks', 'where the running emulator delivers webhooks: shown, or changed without a restart', runner, [webhooksShow, webhooksSetUrl, webhooksClear], webhooksShow))
    .addCommand(verb(wait, runner));
  // Its usage names the commands just added, so a new one cannot be left out of it.
  return emulator.usage(`[options]\n       offramp emulator ${emulator.commands.map((c) => c.name()).join('|')} ...`);
};
