// Moved to src/lib/input/dates.ts (issue 23); kept until src/lib/revenue imports from there.
export * from './input/dates.js';
