declare const __OFFRAMP_VERSION__: string;

/** Set at build time from package.json (esbuild and vitest `define`). */
export const VERSION = typeof __OFFRAMP_VERSION__ === 'string' ? __OFFRAMP_VERSION__ : '0.0.0-dev';
export const API_VERSION = '/api/v1 (interface 1.0.0)';

/** What `offramp --version` prints. */
export const VERSION_TEXT = `offramp ${VERSION}\nAPI ${API_VERSION}`;
