// Before any test of the shipped forms: dist/ and the standalone executables, built afresh
// as `npm run build:binary` does, so no test meets a stale executable. Temp dirs go under
// one root removed at the end, as in test/global-setup.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  execFileSync(process.execPath, [new URL('../scripts/build-binary.mjs', import.meta.url).pathname], { stdio: 'inherit' });
  const root = mkdtempSync(join(tmpdir(), 'offramp-dist-tests-'));
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
