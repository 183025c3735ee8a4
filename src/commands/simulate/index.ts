// offramp simulate: one simulator event (event.ts), or a whole walk (walk.ts).
import { verb, type Runtime } from '../command.js';
import * as event from './event.js';
import * as walk from './walk.js';

export const command = (runtime: Runtime) => verb(event, runtime).addCommand(verb(walk, runtime));
