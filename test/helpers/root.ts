// Tests that give a file away (chown) or mount a disk need root, which CI has; they are
// written `it.runIf(isRoot)` so that elsewhere they show as skipped rather than passing.
export const isRoot = process.getuid?.() === 0;

/** The uid and gid a root test gives a file to: another user, present on every Linux. */
export const NOBODY = 65534;
