// The directories above a path, judged as ssh judges those above its keys: whoever can write
// one of them can rename what is inside it and put their own in its place, between our check
// and our read. So each directory from `/` down must be the user's or root's and writable by
// no one else; a shared directory with the sticky bit (/tmp) is the one exception, since
// there only an entry's owner can rename or remove it: it passes when the entry on the way
// down is the user's or root's (docs/configuration.md, "Files others control").
// Imports only Node's own modules: bin/offramp.js loads it (dist/ancestry.js) before the
// compile cache is on.
import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, parse, sep } from 'node:path';

/** Why a path cannot be trusted (one line), and what to do about it. */
export type Distrust = { reason: string; hint: string };

const STICKY = 0o1000;

/** Who the write bits of `mode` let in, in words; undefined when only the owner. */
export function writers(mode: number): string | undefined {
  const w = mode & 0o022;
  if (!w) return undefined;
  return w === 0o022 ? 'its group and other users' : w & 0o020 ? 'its group' : 'other users';
}

export function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

/** Links followed on one walk before it gives up (as the kernel's ELOOP does: the open then fails). */
const MAX_LINKS = 40;

/**
 * Why some directory above `path` (up to `/`) lets another user replace what is at `path`,
 * or undefined when none does. The walk goes as the kernel's does: part by part from `/`,
 * `..` taken after the links before it, and every symbolic link followed where it stands,
 * so each directory a link chain passes through is judged; a part that does not exist yet
 * ends the walk (what the CLI creates there is its own). Nothing is checked where POSIX
 * owners do not exist (Windows).
 */
export function distrustAncestry(path: string): Distrust | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  // Not normalised: `link/..` is the link target's parent, not the link's directory.
  const parts = (isAbsolute(path) ? path : `${process.cwd()}${sep}${path}`).split(sep).filter(Boolean);
  let dir = parse(process.cwd()).root;
  let links = 0;
  for (let part = parts.shift(); part !== undefined; part = parts.shift()) {
    if (part === '.') continue;
    if (part === '..') {
      dir = dirname(dir);
      continue;
    }
    const st = lstatOrUndefined(dir);
    if (!st) return undefined;
    const entry = join(dir, part);
    if (st.isDirectory()) {
      const why = distrustDirectory(dir, st, entry, uid);
      if (why) return why;
    }
    // A link's own modes mean nothing: its directory was judged just now, its target is walked next.
    if (lstatOrUndefined(entry)?.isSymbolicLink() && ++links <= MAX_LINKS) {
      const target = readlinkSync(entry);
      parts.unshift(...target.split(sep).filter(Boolean));
      if (isAbsolute(target)) dir = parse(target).root;
      continue;
    }
    dir = entry;
  }
  return undefined;
}

function distrustDirectory(dir: string, st: Stats, entry: string, uid: number): Distrust | undefined {
  const elsewhere = 'use a path in a directory only you (or root) can write, such as one under your home directory';
  if (st.uid !== uid && st.uid !== 0) return { reason: `${dir} is owned by another user (uid ${st.uid})`, hint: elsewhere };
  const who = writers(st.mode);
  if (!who) return undefined;
  if (st.mode & STICKY) {
    // Only an entry's owner (or root) can rename it here: one that is ours or root's stays put.
    const inside = lstatOrUndefined(entry);
    if (!inside || inside.uid === uid || inside.uid === 0) return undefined;
    return { reason: `${entry} is owned by another user (uid ${inside.uid}) in the shared directory ${dir}`, hint: elsewhere };
  }
  return {
    reason: `${dir} is writable by ${who} (mode ${octal(st.mode)})`,
    // Never a change to a directory that is not the user's: they cannot make it, and should not.
    hint: st.uid === uid ? `chmod go-w ${dir}, or ${elsewhere}` : elsewhere,
  };
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
