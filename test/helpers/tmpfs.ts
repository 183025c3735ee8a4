// A small tmpfs, to fill a disk for real in a test (Linux, root only; CI runs as root).
import { execFileSync } from 'node:child_process';
import { isRoot } from './root.js';

/** Mounts a tmpfs of `size` on `dir`; the reason it could not be, otherwise (the test then skips). */
export function mountTmpfs(dir: string, size = '64k'): string | undefined {
  if (process.platform !== 'linux') return 'tmpfs is Linux only';
  if (!isRoot) return 'mounting a tmpfs needs root';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `mount -t tmpfs was refused here: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  }
}

export function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
  } catch {
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  }
}
