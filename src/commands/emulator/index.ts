// offramp emulator: the server (serve.ts), and the commands that drive a running one
// through its control plane, in the order its help lists them.
import { Command } from '@commander-js/extra-typings';
import { verb, type Runtime } from '../command.js';
import * as serve from './serve.js';
import * as clock from './clock.js';
import * as faultAdd from './fault-add.js';
import * as faultClear from './fault-clear.js';
import * as reset from './reset.js';
import * as stateExport from './state-export.js';
import * as stateImport from './state-import.js';
import * as wait from './wait.js';
import * as webhooksClear from './webhooks-clear.js';
import * as webhooksSetUrl from './webhooks-set-url.js';

export const command = (runtime: Runtime) =>
  verb(serve, runtime)
    .addCommand(new Command('clock').description("move the emulator's business time").addCommand(verb(clock, runtime)))
    .addCommand(verb(reset, runtime))
    .addCommand(new Command('fault').description('targeted faults on API routes or webhook deliveries').addCommand(verb(faultAdd, runtime)).addCommand(verb(faultClear, runtime)))
    .addCommand(
      new Command('state')
        .description("the emulator's whole state, out and in (the --state file format)")
        .addCommand(verb(stateExport, runtime))
        .addCommand(verb(stateImport, runtime)),
    )
    .addCommand(
      new Command('webhooks')
        .description('where the running emulator delivers webhooks, changed without a restart')
        .addCommand(verb(webhooksSetUrl, runtime))
        .addCommand(verb(webhooksClear, runtime)),
    )
    .addCommand(verb(wait, runtime));
