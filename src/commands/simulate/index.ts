// offramp simulate: one simulator event (event.ts), or a whole walk (walk.ts).
import { verb, type Runner } from '../command.js';
import * as event from './event.js';
import * as walk from './walk.js';

export const command = (runner: Runner) => verb(event, runner).addCommand(verb(walk, runner));
