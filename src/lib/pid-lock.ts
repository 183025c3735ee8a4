// Moved to src/lib/fs/pid-lock.ts (issue 23); kept until src/lib/revenue imports from there.
export * from './fs/pid-lock.js';
