// Moved to src/lib/fs/ (issue 23); kept until src/lib/revenue imports from there.
export { AtomicFile, writeAside, type AtomicFileOptions } from './fs/atomic.js';
export { isAlive } from './fs/stale.js';
