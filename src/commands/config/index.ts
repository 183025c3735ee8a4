// offramp config: its commands.
import { group, type Runner } from '../command.js';
import * as path from './path.js';

export const command = (runner: Runner) => group('config', 'the config file', runner, [path]);
