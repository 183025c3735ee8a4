// offramp emulator: the server (serve.ts) and the control commands, in the order its help lists them.
import { group, verb, type Runtime } from '../command.js';
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

export const command = (runtime: Runtime) =>
  verb(serve, runtime)
    .addCommand(group('clock', "move the emulator's business time", runtime, [clock]))
    .addCommand(verb(reset, runtime))
    .addCommand(group('fault', 'targeted faults on API routes or webhook deliveries', runtime, [faultAdd, faultClear]))
    .addCommand(group('state', "the emulator's whole state, out and in (the --state file format)", runtime, [stateExport, stateImport]))
    .addCommand(
      // Bare, it shows where deliveries go now.
      group('webhooks', 'where the running emulator delivers webhooks: shown, or changed without a restart', runtime, [webhooksShow, webhooksSetUrl, webhooksClear], webhooksShow),
    )
    .addCommand(verb(wait, runtime));
