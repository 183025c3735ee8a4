// Files only their owner can change, refused otherwise, as ssh treats its keys: a file the
// CLI trusts (the listener's store, what an export writes and reads back) must be owned by
// the user and writable by no one else, and so must its directory (whoever can write the
// directory can replace the file), and every directory above it (./ancestry.ts). What the CLI
// creates is private from the start (0700, 0600, O_EXCL), so a file planted under that name a
// moment earlier is never opened as ours.
// Where POSIX owners and modes do not exist (Windows), nothing is checked.
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { errorKind, EXIT } from '../errors.js';
import { distrustAncestry, octal, writers } from './ancestry.js';

/** A file or directory that someone other than the user could change. */
export class InsecurePathError extends errorKind('INSECURE_PATH', EXIT.usage) {}

export type PathKind = 'file' | 'directory';

/**
 * Why `path` (whose stats are `st`) cannot be trusted, in one line, or undefined when it
 * can: the wrong kind, another owner (for a directory, root is trusted too, as ssh does:
 * `/var` is root's; for a file only when `rootMayOwn`), or writable by its group or by others.
 */
export function distrust(path: string, st: Stats, kind: PathKind, subject: string = path, rootMayOwn = kind === 'directory'): string | undefined {
  if (kind === 'file' && !st.isFile()) return `${subject} is not a regular file${st.isFIFO() ? ' (a FIFO)' : st.isSocket() ? ' (a socket)' : st.isCharacterDevice() || st.isBlockDevice() ? ' (a device)' : st.isDirectory() ? ' (a directory)' : ''}`;
  if (kind === 'directory' && !st.isDirectory()) return `${subject} is not a directory`;
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  if (st.uid !== uid && !(rootMayOwn && st.uid === 0)) return `${subject} is owned by another user (uid ${st.uid}), not by you (uid ${uid})`;
  const who = writers(st.mode);
  return who && `${subject} is writable by ${who} (mode ${octal(st.mode)})`;
}

/** What the user can do about a path `distrust` refused. */
export function trustHint(path: string, st: Stats, kind: PathKind, rootMayOwn = kind === 'directory'): string {
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid && !(rootMayOwn && st.uid === 0)) {
    return kind === 'file'
      ? `another user may have planted it; use a path in a directory only you can write, or remove it if you trust it`
      : `use a directory you own (it is created 0700 when missing)`;
  }
  if (kind === 'file' && !st.isFile()) return 'give the path of a regular file';
  // A shared directory such as /tmp is meant to be writable by all: never suggest changing it.
  if (kind === 'directory' && st.mode & 0o1000) return `use a directory of your own (inside ${path} or elsewhere), not the shared directory itself`;
  return `chmod go-w ${path}`;
}

/** Throws InsecurePathError when `st` (of `path`) is not trusted. */
function check(path: string, st: Stats, kind: PathKind, what: string, subject: string = path, rootMayOwn = kind === 'directory'): void {
  const reason = distrust(path, st, kind, subject, rootMayOwn);
  if (reason) throw new InsecurePathError(`refusing ${what}: ${reason}`, trustHint(path, st, kind, rootMayOwn));
}

/** Throws InsecurePathError when a directory above `path` lets someone else replace it (./ancestry.ts). */
export function checkAncestry(path: string, what: string): void {
  const why = distrustAncestry(path);
  if (why) throw new InsecurePathError(`refusing ${what}: ${why.reason}`, why.hint);
}

/** `dir` created 0700 (parents too) when missing, else checked, and the directories above it; `what` names it in a refusal. */
export async function ensurePrivateDirectory(dir: string, what = `the directory ${dir}`): Promise<void> {
  const absolute = resolve(dir);
  checkAncestry(absolute, what);
  let st: Stats;
  try {
    st = await stat(absolute);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await mkdir(absolute, { recursive: true, mode: 0o700 });
    st = await stat(absolute);
  }
  check(absolute, st, 'directory', what);
}

export type OpenPrivateOptions = {
  /** fs.constants flags for opening (O_CREAT, O_EXCL and O_NOFOLLOW are added as needed). */
  flags: number;
  /** Create the file (0600, exclusively) when it does not exist; default false. */
  create?: boolean;
  /** Create its directory (0700) when missing; default false. */
  createDirectory?: boolean;
  /** Only create: an existing file is an error (EEXIST), never opened. */
  exclusive?: boolean;
  /** Names the file in a refusal, e.g. "the store webhooks.ndjson"; default "the file PATH". */
  what?: string;
};

/**
 * Opens `path` after checking its directory, and checks the file on the opened handle
 * (fstat), so what is checked is what is used. A symbolic link is refused; a file another
 * process creates between our two opens is opened and checked like any existing one.
 */
export async function openPrivateFile(path: string, opts: OpenPrivateOptions): Promise<{ handle: FileHandle; created: boolean }> {
  const absolute = resolve(path);
  const what = opts.what ?? `the file ${absolute}`;
  // "refusing the store /a/b: it is ..." rather than naming the same file twice.
  const self = what.endsWith(path) || what.endsWith(absolute) ? 'it' : absolute;
  const dir = dirname(absolute);
  if (opts.createDirectory && !existsSync(dir)) await ensurePrivateDirectory(dir, what);
  // Its directory and every one above: a shared sticky one (/tmp) passes, since what we
  // open or create there is ours and only we can rename it.
  checkAncestry(absolute, what);

  const base = opts.flags & ~(constants.O_CREAT | constants.O_EXCL | constants.O_TRUNC);
  const nofollow = constants.O_NOFOLLOW ?? 0;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (opts.exclusive) return { handle: await open(absolute, base | nofollow | constants.O_CREAT | constants.O_EXCL, 0o600), created: true };
    try {
      const handle = await open(absolute, base | nofollow);
      try {
        check(absolute, await handle.stat(), 'file', what, self);
      } catch (err) {
        await handle.close();
        throw err;
      }
      return { handle, created: false };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new InsecurePathError(`refusing ${what}: ${self} is a symbolic link`, 'give the path of the file itself');
      if (code !== 'ENOENT' || !opts.create) throw err;
    }
    try {
      const handle = await open(absolute, base | nofollow | constants.O_CREAT | constants.O_EXCL, 0o600);
      return { handle, created: true };
    } catch (err) {
      // Someone created it since our first open: open and check theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new InsecurePathError(`refusing ${what}: it keeps appearing and disappearing`, 'is another process creating and removing it?');
}

/**
 * The content of a small file the user must be able to trust (a secret's `NAME_FILE`, a ready
 * file): opened first without waiting (O_NONBLOCK: a FIFO is refused, not waited on forever),
 * then checked on the opened descriptor (a regular file, the user's or root's, writable by no
 * one else) and through every directory above it, and read from that same descriptor.
 * A missing file throws Node's error (ENOENT) for the caller to say.
 */
export function readTrustedFile(path: string, what: string): string {
  const absolute = resolve(path);
  let fd: number;
  try {
    fd = openSync(absolute, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    // A Unix socket cannot be opened at all: said as what it is, like a FIFO or a device.
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') throw new InsecurePathError(`refusing ${what}: ${path} is not a regular file (a socket)`, 'give the path of a regular file');
    throw err;
  }
  try {
    check(absolute, fstatSync(fd), 'file', what, path, true);
    // Once no directory above it is another's, no one else can have swapped it since the open.
    checkAncestry(absolute, what);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
