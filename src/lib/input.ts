// Moved to src/lib/input/values.ts (issue 23); kept until the revenue export imports from there.
export * from './input/values.js';
