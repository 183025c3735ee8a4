// offramp tx: its commands, in the order its help lists them.
import { group, type Runtime } from '../command.js';
import * as cancel from './cancel.js';
import * as create from './create.js';
import * as get from './get.js';
import * as history from './history.js';
import * as list from './list.js';
import * as watch from './watch.js';

export const command = (runtime: Runtime) => group('tx', 'create, read, list, cancel and watch transactions', runtime, [create, get, list, cancel, history, watch]);
