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
// A code cache is code, and V8 trusts it further than one would think: it checks its own
// version, its flags and the source's length, and by default nothing else. A release build
// does not verify the checksum each cache carries: a cache with one byte changed is
// accepted and crashes the process (V8 "unreachable code"), or runs whatever it says. So:
// - V8 is told to verify it (--verify-snapshot-checksum, set with --liftoff-only below): a
//   damaged cache is refused, the file compiled from source and its cache written again;
// - the cache lives where only the user can write: a directory of their own (0700, owner
//   and mode checked), each file checked the same way when opened; under the OS temp dir
//   on POSIX as Node's own cache is, under %LOCALAPPDATA% on Windows (per user), or under
//   NODE_COMPILE_CACHE when set;
// - it is keyed to the build (a hash of dist/ the build stamps in), the Node version and
//   CPU, and each file's identity (inode, size, modification and change times): a dist/
//   file edited in place runs as edited;
// - it is written at exit, through a temporary file and a rename: a concurrent run reads a
//   whole cache or none; nothing is written after a run changed V8's flags (the export
//   does), since V8 would refuse such a cache in the next, ordinary, run.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node's own.
//
// The hook compiles dist/ files as Node's own _compile does, minus what they never use:
// policy manifests (--experimental-policy), and module.children (each file gets a require
// of its own, from Module.createRequire).
import Module from 'node:module';
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

declare const __OFFRAMP_BUILD_ID__: string;

/** Set by code that changes V8's flags while running (src/lib/v8-flags.ts sets it). */
const FLAGS_CHANGED = Symbol.for('offramp.v8-flags-changed');

/** A cache directory of another build or Node not used for this long is removed when one is written. */
const STALE_MS = 7 * 24 * 3600 * 1000;
/** How stale a directory in use may look before a run marks it as used. */
const TOUCH_MS = 24 * 3600 * 1000;

type CompilingModule = { exports: unknown; _compile(content: string, filename: string): unknown };
type Wrapper = (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => unknown;

export type CacheOptions = {
  /** dist/ itself: only files under it are cached. */
  dist: string;
  env: NodeJS.ProcessEnv;
  buildId?: string;
};

/** Whether a directory or file is the user's own and nobody else may write it (POSIX). */
function isPrivate(st: Stats, uid: number | undefined): boolean {
  return uid === undefined || (st.uid === uid && (st.mode & 0o022) === 0);
}

/**
 * The directory for this build's cache, created if need be, or undefined when the cache is
 * off or the place is not safely the user's own.
 */
export function cacheDirectory(env: NodeJS.ProcessEnv, buildId: string): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE === '1') return undefined;
  const uid = process.getuid?.();
  // Windows has no owner check here: only a per-user place (or the user's explicit choice).
  const base = env.NODE_COMPILE_CACHE || (process.platform === 'win32' ? env.LOCALAPPDATA : tmpdir());
  if (!base) return undefined;
  const root = join(base, `offramp-compile-cache${uid === undefined ? '' : `-${uid}`}`);
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    // lstat: a symbolic link put in its place is not a directory, and is not followed.
    const st = lstatSync(root);
    if (!st.isDirectory() || !isPrivate(st, uid) || (uid !== undefined && (st.mode & 0o077) !== 0)) return undefined;
    const dir = join(root, `${buildId}-node${process.versions.node}-${process.arch}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const own = lstatSync(dir);
    if (!own.isDirectory() || !isPrivate(own, uid)) return undefined;
    // Mark it used now and then, so that stale-directory removal never takes one in use.
    if (Date.now() - own.mtimeMs > TOUCH_MS) utimesSync(dir, new Date(), new Date());
    return dir;
  } catch {
    return undefined;
  }
}

/** A cache file's contents, or undefined when the file is missing or others may write it. */
export function readCache(file: string, uid: number | undefined): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    return isPrivate(fstatSync(fd), uid) ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
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
  installed = true;
  // The HTTP client asks V8 for baseline WebAssembly only (src/lib/client/undici.ts). V8
  // keys a cache to its flags, so the flags are set before anything they cover compiles,
  // the same in every run: a cache written at exit then fits the next run from its first
  // file. --verify-snapshot-checksum: see the top of this file (native, ~1 ms a megabyte).
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--verify-snapshot-checksum');

  const uid = process.getuid?.();
  const prefix = opts.dist.endsWith(sep) ? opts.dist : opts.dist + sep;
  const fresh: Array<{ name: string; file: string; script: Script }> = [];
  const proto = Module.prototype as unknown as CompilingModule;
  const compile = proto._compile;
  proto._compile = function (this: CompilingModule, content: string, filename: string) {
    if (!filename.startsWith(prefix)) return compile.call(this, content, filename);
    const st = statSync(filename);
    const name = filename.slice(prefix.length).replaceAll(sep, '__');
    // The file's identity, so an edit in place (same length, new code) misses the cache.
    const file = join(dir, `${name}@${st.ino}-${st.size}-${Math.trunc(st.mtimeMs * 1000)}-${Math.trunc(st.ctimeMs * 1000)}`);
    const cachedData = readCache(file, uid);
    const script = new Script(Module.wrap(content), { filename, ...(cachedData ? { cachedData } : {}) });
    if (!cachedData || script.cachedDataRejected) fresh.push({ name, file, script });
    const wrapper = script.runInThisContext({ displayErrors: true }) as Wrapper;
    return wrapper.call(this.exports, this.exports, Module.createRequire(filename), this, filename, dirname(filename));
  };

  process.once('exit', () => {
    if (fresh.length === 0 || (globalThis as Record<symbol, unknown>)[FLAGS_CHANGED]) return;
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const { name, file, script } of fresh) {
      try {
        writeAtomically(file, script.createCachedData());
        // The same dist/ file's caches from before an edit are of no more use.
        for (const old of names) if (old.startsWith(`${name}@`) && join(dir, old) !== file) rmSync(join(dir, old), { force: true });
      } catch {
        // a cache is an optimisation: a failure to make or write one costs speed, never the run
      }
    }
    removeStale(dirname(dir), dir);
  });
  return true;
}

function writeAtomically(file: string, data: Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true }); // a full or read-only disk costs speed, never the run
  }
}

/** Caches of other builds or Node versions not used for a week. */
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
