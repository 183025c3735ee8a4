declare const __OFFRAMP_VERSION__: string;
declare const __OFFRAMP_STANDALONE__: boolean;

/** Set at build time from package.json (esbuild and vitest `define`). */
export const VERSION = typeof __OFFRAMP_VERSION__ === 'string' ? __OFFRAMP_VERSION__ : '0.0.0-dev';

/**
 * True in the standalone executable only (scripts/build-binary.mjs defines it): the CLI and
 * the Node runtime in one file, which reads its help from itself (docs/install.md).
 */
export const STANDALONE = typeof __OFFRAMP_STANDALONE__ === 'boolean' && __OFFRAMP_STANDALONE__;

/** What `offramp --version` prints. */
export const VERSION_TEXT = `offramp ${VERSION}${STANDALONE ? ` (standalone, Node.js ${process.version})` : ''}\nAPI /api/v1 (interface 1.0.0)`;
