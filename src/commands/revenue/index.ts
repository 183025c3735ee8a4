// offramp revenue: its commands, in the order its help lists them.
import { Command } from '@commander-js/extra-typings';
import { verb, type Runtime } from '../command.js';
import * as exporting from './export.js';
import * as summary from './summary.js';

export const command = (runtime: Runtime) =>
  new Command('revenue')
    .description('the revenue ledger: export rows and totals')
    .addCommand(verb(exporting, runtime))
    .addCommand(verb(summary, runtime));
