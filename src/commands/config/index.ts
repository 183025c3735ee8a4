// offramp config: its commands.
import { Command } from '@commander-js/extra-typings';
import { verb, type Runtime } from '../command.js';
import * as path from './path.js';

export const command = (runtime: Runtime) => new Command('config').description('the config file').addCommand(verb(path, runtime));
