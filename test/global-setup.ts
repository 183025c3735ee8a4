// Before any test: a fresh build, since the end-to-end tests run the built `offramp`
// (dist/), so `npx vitest run FILE` or an editor's runner never tests a stale one.
// Then one temporary root per test run: every temp dir the tests and the code under test
// make (homes, stores, spools, exports, packed tarballs) lands under it, and it is removed
// when the run ends, so `npm test` leaves nothing behind in the OS temp dir.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  execFileSync(process.execPath, [new URL('../scripts/build.mjs', import.meta.url).pathname], { stdio: 'inherit' });
  const root = mkdtempSync(join(tmpdir(), 'offramp-tests-'));
  // Read by os.tmpdir() in every worker, which inherits this process's environment.
  process.env.TMPDIR = root;
  // A process a failed test left running may still be writing under it: rmSync retries
  // ENOTEMPTY and EBUSY (maxRetries) instead of ending the run on a race.
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
