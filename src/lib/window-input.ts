// Moved to src/lib/input/window.ts (issue 23); kept until the revenue export imports from there.
export * from './input/window.js';
