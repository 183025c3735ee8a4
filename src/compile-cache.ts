// A V8 code cache for dist/ on Node 20, which lacks Node's own (module.enableCompileCache,
// Node 22.1+; bin/offramp.js uses that where it exists).
//
// Every run of the CLI compiles the same ~700 KB of JavaScript (commander, undici, zod, our
// code) before it can send one request: ~40 ms of a `tx get`. V8 can serialise what it
// compiled and accept it back on the next run (vm.Script's cachedData), as the
// v8-compile-cache package did for Node 10-20: installed by dist/main.js before a command
// loads, this compiles each dist/ file through vm.Script with the cache from the previous
// run, and at exit saves the code of each file that had none (or whose cache V8 refused).
// Measured: `tx get --json` 3.1x -> 2.8x bare node (BENCHMARKS.md).
//
// What keeps it safe:
// - Code cache is code: the directory is the user's own (0700, owned by them, checked
//   before use), under the OS temp dir as Node's own cache is, or NODE_COMPILE_CACHE.
// - One directory per build (a hash of dist/, stamped in by the build), Node version and
//   CPU, and the file's modification time in its cache's name: V8 checks its own version
//   and flags, but of the source only its length.
// - V8 refuses a cache that does not fit (another V8, other flags, a damaged file): the file
//   is compiled from source as usual and its cache written again.
// - Written at exit through a temporary file and a rename: a concurrent run reads a whole
//   cache or none. Nothing is written after a run changed V8's flags (the export does):
//   V8 would refuse such a cache on the next, ordinary, run.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node's own.
import Module from 'node:module';
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

declare const __OFFRAMP_BUILD_ID__: string;

/** Set by code that changes V8's flags while running (src/lib/v8-flags.ts sets it). */
const FLAGS_CHANGED = Symbol.for('offramp.v8-flags-changed');

/** A cache directory older than this, of another build or Node, is removed when one is written. */
const STALE_MS = 7 * 24 * 3600 * 1000;

type CompilingModule = { exports: unknown; _compile(content: string, filename: string): unknown };
type Wrapper = (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => unknown;

export type CacheOptions = {
  /** dist/ itself: only files under it are cached. */
  dist: string;
  env: NodeJS.ProcessEnv;
  buildId?: string;
};

/**
 * The directory for this build's cache, created if need be, or undefined when the cache is
 * off or the place is not safely the user's own.
 */
export function cacheDirectory(env: NodeJS.ProcessEnv, buildId: string): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE === '1') return undefined;
  const uid = process.getuid?.();
  const root = join(env.NODE_COMPILE_CACHE || tmpdir(), `offramp-compile-cache${uid === undefined ? '' : `-${uid}`}`);
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    const st = lstatSync(root);
    if (!st.isDirectory()) return undefined;
    if (uid !== undefined && (st.uid !== uid || (st.mode & 0o077) !== 0)) return undefined;
    const dir = join(root, `${buildId}-node${process.versions.node}-${process.arch}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  } catch {
    return undefined;
  }
}

let installed = false;

/**
 * Installs the cache for files under `dist` (once: a second call changes nothing); returns
 * false (and changes nothing) when it is off.
 */
export function install(opts: CacheOptions): boolean {
  if (installed) return true;
  const dir = cacheDirectory(opts.env, opts.buildId ?? __OFFRAMP_BUILD_ID__);
  if (!dir) return false;
  // The HTTP client asks V8 for baseline WebAssembly only (src/lib/client/undici.ts). V8
  // keys a cache to its flags, so the flag is set before anything compiles, the same in
  // every run: a cache written at exit then fits the next run from its first file.
  setFlagsFromString('--liftoff-only');

  installed = true;
  const prefix = opts.dist.endsWith(sep) ? opts.dist : opts.dist + sep;
  const fresh: Array<{ file: string; script: Script }> = [];
  const proto = Module.prototype as unknown as CompilingModule;
  const compile = proto._compile;
  proto._compile = function (this: CompilingModule, content: string, filename: string) {
    if (!filename.startsWith(prefix)) return compile.call(this, content, filename);
    // V8 checks a cache against the source's length only: the file's modification time in
    // the name keeps a dist/ file edited in place (same length, new code) from old code.
    const file = join(dir, `${filename.slice(prefix.length).replaceAll(sep, '__')}@${Math.trunc(statSync(filename).mtimeMs * 1000)}`);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(file);
    } catch {
      // none yet
    }
    const script = new Script(Module.wrap(content), { filename, ...(cachedData ? { cachedData } : {}) });
    if (!cachedData || script.cachedDataRejected) fresh.push({ file, script });
    const wrapper = script.runInThisContext({ displayErrors: true }) as Wrapper;
    return wrapper.call(this.exports, this.exports, Module.createRequire(filename), this, filename, dirname(filename));
  };

  process.once('exit', () => {
    if (fresh.length === 0 || (globalThis as Record<symbol, unknown>)[FLAGS_CHANGED]) return;
    for (const { file, script } of fresh) writeAtomically(file, script.createCachedData());
    removeStale(dirname(dir), dir);
  });
  return true;
}

function writeAtomically(file: string, data: Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true }); // a full or read-only disk costs speed, never the run
  }
}

/** Caches of other builds or Node versions not written to for a week. */
function removeStale(root: string, keep: string): void {
  try {
    for (const name of readdirSync(root)) {
      const path = join(root, name);
      if (path !== keep && Date.now() - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
    }
  } catch {
    // best effort
  }
}
