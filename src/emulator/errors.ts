// Errors startEmulator throws that a caller may want to tell apart. Only types.ts is
// imported: the package's declarations include this module (src/emulator/types.ts says why).
import type { EmulatorOptions } from './types.js';

/**
 * The state file cannot be used: damaged, written by another version, not private to
 * this user, or in use by another emulator. The message is one line saying which.
 */
export class StateFileError extends Error {
  override name = 'StateFileError';
}

/**
 * An option startEmulator refuses. Each rule is written once, here: `say` names the options
 * through `name`, which gives their names in code for the message, and their flags to the
 * CLI (src/commands/emulator/serve.ts).
 */
export class OptionError extends RangeError {
  constructor(
    readonly say: (name: (option: keyof EmulatorOptions) => string) => string,
    readonly hint?: string,
  ) {
    super(hint === undefined ? say((option) => option) : `${say((option) => option)} (${hint})`);
  }
}
