// offramp revenue: its commands, in the order its help lists them.
import { group, type Runner } from '../command.js';
import * as exporting from './export.js';
import * as report from './report.js';
import * as summary from './summary.js';

export const command = (runner: Runner) => group('revenue', 'the revenue ledger: export rows, totals, a report', runner, [exporting, summary, report]);
