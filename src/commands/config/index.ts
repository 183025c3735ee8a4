// offramp config: its commands.
import { group, type Runtime } from '../command.js';
import * as path from './path.js';

export const command = (runtime: Runtime) => group('config', 'the config file', runtime, [path]);
