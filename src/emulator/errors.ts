// Errors startEmulator throws that a caller may want to tell apart. Kept free of imports:
// the package's declarations include this module (src/emulator/types.ts says why).

/**
 * The state file cannot be used: damaged, written by another version, not private to
 * this user, or in use by another emulator. The message is one line saying which.
 */
export class StateFileError extends Error {
  override name = 'StateFileError';
}
