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
// NODE_DISABLE_COMPILE_CACHE=1 turns it off; NODE_COMPILE_CACHE=DIR puts it elsewhere.
// Node's default place is under the system temp dir, with a name anyone can guess and
// create first: whoever plants entries there runs code in the process holding the keys.
// So it lives in the user's own cache dir, made 0700, and is not used at all when that
// dir, or any directory above it, is another user's or others can write it (the rule the
// config dir follows, docs/configuration.md: whoever can write a directory above it could
// swap the whole cache between the check and Node's use of it).
const { enableCompileCache } = require('node:module');
if (enableCompileCache && !process.env.NODE_DISABLE_COMPILE_CACHE) {
  if (process.env.NODE_COMPILE_CACHE) enableCompileCache();
  else {
    const dir = privateCacheDir(process.env);
    if (dir) enableCompileCache(require('node:path').join(dir, 'compile-cache'));
  }
}
require('../dist/main.js');

/** The user's cache dir for offramp, made 0700 if missing; undefined when it cannot be trusted. */
function privateCacheDir(env) {
  const { join } = require('node:path');
  const home = env.HOME || require('node:os').homedir();
  const dir =
    process.platform === 'darwin' ? join(home, 'Library', 'Caches', 'offramp')
    : process.platform === 'win32' ? join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'offramp', 'Cache')
    : join(env.XDG_CACHE_HOME || join(home, '.cache'), 'offramp');
  const fs = require('node:fs');
  // The one judge of the directories above a path (src/lib/fs/ancestry.ts), built apart so
  // that loading it loads nothing else.
  const above = require('../dist/ancestry.js').distrustAncestry(dir);
  let why = above && above.reason;
  if (!why) {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const st = fs.lstatSync(dir);
      if (!st.isDirectory()) why = 'it is not a directory';
      else if (process.platform !== 'win32' && st.uid !== process.getuid()) why = `it is owned by another user (uid ${st.uid})`;
      else if (process.platform !== 'win32' && st.mode & 0o022) why = `others can write it (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')})`;
    } catch (err) {
      why = err.code || 'it cannot be made';
    }
  }
  if (!why) return dir;
  // Compiling each run is only slower: said with --verbose, not on every run.
  if (process.argv.includes('--verbose') || process.argv.includes('-v')) process.stderr.write(`note: compile cache not used: ${dir}: ${why}\n`);
  return undefined;
}
