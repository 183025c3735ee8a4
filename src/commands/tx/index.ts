// offramp tx: its commands, in the order its help lists them.
import { group, type Runner } from '../command.js';
import * as cancel from './cancel.js';
import * as create from './create.js';
import * as get from './get.js';
import * as history from './history.js';
import * as list from './list.js';
import * as watch from './watch.js';

export const command = (runner: Runner) => group('tx', 'create, read, list, cancel and watch transactions', runner, [create, get, list, cancel, history, watch]);
