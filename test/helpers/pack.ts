// The package as `npm pack` makes it, packed once per test run for every file that needs
// it (packaging, the emulator as a library): the first caller packs into the run's temp
// root (test/global-setup.ts), the others, in this worker or the other, wait for it.
// `mkdir` is the lock: it succeeds for exactly one caller.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

export type Packed = { tarball: string; files: string[] };

/** This worker's answer, for the run whose temp root it was packed under. */
let once: { dir: string; packed: Promise<Packed> } | undefined;

/** The packed tarball's path and the files it holds (as `npm pack --json` lists them). */
export function packed(): Promise<Packed> {
  const dir = join(tmpdir(), 'offramp-packed');
  if (once?.dir !== dir) once = { dir, packed: packOnce(dir) };
  return once.packed;
}

async function packOnce(dir: string): Promise<Packed> {
  const done = join(dir, 'packed.json');
  try {
    mkdirSync(dir);
  } catch {
    return packedByAnother(done);
  }
  let result: Packed | { error: string };
  try {
    // --ignore-scripts: the build (prepare) must not rerun under the other tests' feet; dist/ is built.
    const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const [pack] = JSON.parse(out) as [{ filename: string; files: { path: string }[] }];
    result = { tarball: join(dir, pack.filename), files: pack.files.map((f) => f.path) };
  } catch (err) {
    result = { error: String((err as { stderr?: string }).stderr || err) };
  }
  // Written aside and renamed: a waiter reads the whole answer or none.
  writeFileSync(`${done}.tmp`, JSON.stringify(result));
  renameSync(`${done}.tmp`, done);
  return answer(result);
}

async function packedByAnother(done: string): Promise<Packed> {
  await vi.waitUntil(() => existsSync(done), { timeout: 60_000, interval: 50 });
  return answer(JSON.parse(readFileSync(done, 'utf8')) as Packed | { error: string });
}

function answer(result: Packed | { error: string }): Packed {
  if ('error' in result) throw new Error(`npm pack failed: ${result.error}`);
  return result;
}
