// offramp tx: its commands, in the order its help lists them.
import { Command } from '@commander-js/extra-typings';
import { verb, type Runtime } from '../command.js';
import * as cancel from './cancel.js';
import * as create from './create.js';
import * as get from './get.js';
import * as history from './history.js';
import * as list from './list.js';
import * as watch from './watch.js';

export const command = (runtime: Runtime) =>
  new Command('tx')
    .description('create, read, list, cancel and watch transactions')
    .addCommand(verb(create, runtime))
    .addCommand(verb(get, runtime))
    .addCommand(verb(list, runtime))
    .addCommand(verb(cancel, runtime))
    .addCommand(verb(history, runtime))
    .addCommand(verb(watch, runtime));
