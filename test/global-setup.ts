// One temporary root per test run: every temp dir the tests and the code under test make
// (homes, stores, spools, exports, packed tarballs) lands under it, and it is removed when
// the run ends, so `npm test` leaves nothing behind in the OS temp dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'offramp-tests-'));
  // Read by os.tmpdir() in every worker, which inherits this process's environment.
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true });
}
