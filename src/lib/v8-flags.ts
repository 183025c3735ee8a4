// V8 flags a command changes while it runs (the export's heap sizing). Marked on the global
// object so that Node 20's code cache (src/compile-cache.ts, which reads the same symbol)
// writes nothing at the end of such a run: V8 keys a cache to its flags, and would refuse
// one written under these in the next, ordinary, run.
import { setFlagsFromString } from 'node:v8';

export function setV8Flags(...flags: string[]): void {
  for (const flag of flags) setFlagsFromString(flag);
  (globalThis as Record<symbol, unknown>)[Symbol.for('offramp.v8-flags-changed')] = true;
}
