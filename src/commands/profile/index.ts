// offramp profile: its commands, in the order its help lists them.
import { Command } from '@commander-js/extra-typings';
import { verb, type Runtime } from '../command.js';
import * as add from './add.js';
import * as list from './list.js';
import * as migrate from './migrate.js';
import * as remove from './remove.js';
import * as show from './show.js';
import * as use from './use.js';

export const command = (runtime: Runtime) =>
  new Command('profile')
    .description('stored profiles, one per environment')
    .addCommand(verb(add, runtime))
    .addCommand(verb(list, runtime))
    .addCommand(verb(show, runtime))
    .addCommand(verb(use, runtime))
    .addCommand(verb(remove, runtime))
    .addCommand(verb(migrate, runtime));
