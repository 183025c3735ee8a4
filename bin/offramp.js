#!/usr/bin/env node
// Compiled entry: `npm run build` (run by `npm ci` through `prepare`) writes dist/, which is
// CommonJS, as this file is (bin/package.json): see scripts/build.mjs for why.
'use strict';
if (typeof process.getBuiltinModule !== 'function') {
  // The build uses APIs of Node 20.16+ from its first line; say so rather than crash.
  process.stderr.write(`offramp needs Node.js 20.19 or newer; this is ${process.version}\n`);
  process.exit(1);
}
// On Node 22.1+ V8 keeps the code it compiled for dist/ on disk and reuses it on the next
// run, as tsc and eslint do (Node's own cache; Node 20 has none and compiles each time).
// NODE_DISABLE_COMPILE_CACHE=1 turns it off.
require('node:module').enableCompileCache?.();
require('../dist/main.js');
