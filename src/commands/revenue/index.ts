// offramp revenue: its commands, in the order its help lists them.
import { Command } from '@commander-js/extra-typings';
import { verb, type Runtime } from '../command.js';
import * as exporting from './export.js';
import * as report from './report.js';
import * as summary from './summary.js';

export const command = (runtime: Runtime) =>
  new Command('revenue')
    .description('the revenue ledger: export rows, totals, a report')
    .addCommand(verb(exporting, runtime))
    .addCommand(verb(summary, runtime))
    .addCommand(verb(report, runtime));
