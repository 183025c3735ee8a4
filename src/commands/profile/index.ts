// offramp profile: its commands, in the order its help lists them.
import { group, type Runner } from '../command.js';
import * as add from './add.js';
import * as list from './list.js';
import * as migrate from './migrate.js';
import * as remove from './remove.js';
import * as show from './show.js';
import * as use from './use.js';

export const command = (runner: Runner) => group('profile', 'stored profiles, one per environment', runner, [add, list, show, use, remove, migrate]);
