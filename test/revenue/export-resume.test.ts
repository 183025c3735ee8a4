// Issue 17, "resumable": an export to --out with --resume keeps its finished slices and a
// checkpoint beside FILE (FILE.offramp-resume); killed midway (SIGKILL: nothing of it runs)
// or interrupted (Ctrl-C), the same command again fetches only the slices not finished,
// and the file holds every row exactly once: byte for byte what one uninterrupted export
// writes. A checkpoint made for another query is refused. The runs that are killed or
// interrupted, and the one after a SIGKILL whose TMPDIR is inspected, are the built binary
// in child processes; the others run `main` in process.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { day, freshDir, leftovers, resumeDirOf, spawnExport, tempsOf, until } from './export-helpers.js';

let slow: Awaited<ReturnType<typeof emulatorFor>>;
/** The ledger as one uninterrupted export writes it. */
let whole: string;

const WINDOW = ['--from', day(-180), '--to', day(0)];

beforeAll(async () => {
  slow = await emulatorFor({ seedRevenue: 6000, seed: 23, latencyMs: 60, rateLimit: 40 });
  const dir = freshDir('offramp-resume-ref-');
  const done = await exportInProcess([...WINDOW, '--out', join(dir, 'whole.csv')]);
  expect(done.code, done.stderr).toBe(0);
  whole = readFileSync(join(dir, 'whole.csv'), 'utf8');
});
afterAll(() => slow.close());

/** `offramp revenue export ARGS` in process against the slow emulator. */
const exportInProcess = (args: string[]) => runMain(['revenue', 'export', ...args], { env: slow.env });

/** Rows of the finished slices the checkpoint for `out` lists so far (0 while there is none). */
function checkpointed(out: string): number {
  try {
    const cp = JSON.parse(readFileSync(join(resumeDirOf(out), 'checkpoint.json'), 'utf8')) as { slices: { rows: number }[] };
    return cp.slices.reduce((n, s) => n + s.rows, 0);
  } catch {
    return 0; // not written yet
  }
}

/** An output directory, a TMPDIR, and the file to export to. */
function places() {
  const dir = freshDir('offramp-resume-out-');
  return { dir, tmp: freshDir('offramp-resume-tmp-'), out: join(dir, 'ledger.csv') };
}

function expectEveryRowOnce(text: string) {
  expect(text).toBe(whole);
  const ids = text.split('\r\n').slice(1, -1).map((line) => line.split(',')[0]);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.length).toBe(6000);
}

/** A resumable export to `out`, stopped by `signal` once its checkpoint holds rows. */
async function stopMidway(out: string, tmp: string, signal: NodeJS.Signals) {
  const run = spawnExport([...WINDOW, '--out', out, '--resume'], { env: slow.env, tmp });
  expect(await until(() => checkpointed(out) >= 500), `never checkpointed: ${run.stderr()}`).toBe(true);
  run.child.kill(signal);
  return run.done;
}

describe('revenue export --resume', { timeout: 40_000 }, () => {
  it('killed midway (SIGKILL), the same command continues it: every row exactly once, nothing left', async () => {
    const { dir, tmp, out } = places();
    const killed = await stopMidway(out, tmp, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const kept = checkpointed(out);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(6000);
    expect(readdirSync(dir).filter((n) => n === 'ledger.csv')).toEqual([]);

    const again = await spawnExport([...WINDOW, '--out', out, '--resume'], { env: slow.env, tmp }).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Exported 6,000 rows \(\d+ slices, \d+ pages\) to .* in [\d.]+ s; [\d,]+ of them from the checkpoint/);
    expectEveryRowOnce(readFileSync(out, 'utf8'));
    // The killed run's temporary file beside FILE and its spools are gone.
    expect(readdirSync(dir)).toEqual(['ledger.csv']);
    expect(leftovers(tmp)).toEqual([]);
  });

  it('interrupted (Ctrl-C): exit 130, the checkpoint kept with a hint; --resume finishes it', async () => {
    const { dir, tmp, out } = places();
    const stopped = await stopMidway(out, tmp, 'SIGINT');
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain(`error: INTERRUPTED: export interrupted (SIGINT); ${out} was not written`);
    expect(stopped.stderr).toContain('hint: run the same command again (with --resume) to continue where it stopped');
    expect(tempsOf(dir, 'ledger.csv')).toEqual([]);
    expect(readdirSync(dir)).toEqual(['ledger.csv.offramp-resume']);
    expect(readdirSync(resumeDirOf(out))).not.toContain('lock');

    const again = await exportInProcess([...WINDOW, '--out', out, '--resume']);
    expect(again.code, again.stderr).toBe(0);
    expectEveryRowOnce(readFileSync(out, 'utf8'));
    expect(readdirSync(dir)).toEqual(['ledger.csv']);
  });

  it('a checkpoint for another query is refused; without --resume the export starts over and drops it', async () => {
    const { dir, tmp, out } = places();
    await stopMidway(out, tmp, 'SIGKILL');

    const other = await exportInProcess(['--from', day(-90), '--to', day(0), '--out', out, '--resume']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`error: USAGE: --resume: the checkpoint for ${out} belongs to another export (--from ${day(-180)}T00:00:00.000Z --to ${day(0)}T23:59:59.999Z -o csv); this one differs in --from`);
    const json = await exportInProcess([...WINDOW, '-o', 'ndjson', '--out', out, '--resume']);
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('this one differs in -o');
    expect(existsSync(resumeDirOf(out))).toBe(true);

    const fresh = await exportInProcess([...WINDOW, '--out', out]);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).toContain(`note: an interrupted export to ${out} can be continued with --resume; this run starts over`);
    expectEveryRowOnce(readFileSync(out, 'utf8'));
    expect(readdirSync(dir)).toEqual(['ledger.csv']);
  });

  it('--resume without a checkpoint is a whole export; --resume needs --out', async () => {
    const { dir, out } = places();
    const first = await exportInProcess([...WINDOW, '--out', out, '--resume']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/from the checkpoint/);
    expectEveryRowOnce(readFileSync(out, 'utf8'));
    expect(readdirSync(dir)).toEqual(['ledger.csv']);
    const bare = await exportInProcess([...WINDOW, '--resume']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('error: USAGE: --resume needs --out FILE');
  });
});
