// Issue 17, "nothing hijackable": every temporary path of an export (the file beside
// --out, test/fs/atomic.test.ts; the run directory, its spools and checkpoint, here) is
// created exclusively under a name nobody can guess, so a link or a file planted there by
// someone else is never written through, read as ours, or removed; and what killed runs
// left is cleaned only when it is the user's own and old. In process, with the randomness
// fixed where a test must know a name in advance; the SIGKILL case runs the built binary.
import { chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint, findCheckpoint, CHECKPOINT_FILE } from '../../src/lib/revenue/checkpoint.js';
import { OrderedOutput } from '../../src/lib/revenue/ordered-output.js';
import { rowFormatter } from '../../src/lib/revenue/row-format.js';
import { sweepStaleWorkDirs, WorkDir } from '../../src/lib/revenue/workdir.js';
import { emulatorFor } from '../helpers/emulator.js';
import { day, freshDir, sizeOf, spawnExport, tempsOf, until, workDirs } from './export-helpers.js';

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const DAY_S = 86_400;

/** A fresh directory holding a file someone would like us to overwrite. */
function withVictim(prefix: string) {
  const dir = freshDir(prefix);
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'precious');
  return { dir, victim };
}

describe('run directories, spools and checkpoints', () => {
  it('a spool path that exists (a planted link) is never opened: the export fails, the link target untouched', async () => {
    const { dir, victim } = withVictim('offramp-spool-link-');
    const planted = join(dir, 'slice');
    symlinkSync(victim, planted);
    const output = new OrderedOutput(new PassThrough().resume(), rowFormatter('ndjson'), 2, { spools: { spoolPath: async () => planted } });
    await expect(output.slices[1]!.writeText('{"a":1}\n', 1)).rejects.toThrow(/EEXIST/);
    await output.cleanup();
    expect(readFileSync(victim, 'utf8')).toBe('precious');
  });

  it('a run directory is private (0700), its lock and files 0600', async () => {
    const root = freshDir('offramp-wd-');
    const work = await WorkDir.create(root);
    expect(lstatSync(work.path).mode & 0o777).toBe(0o700);
    expect(lstatSync(work.file('lock')).mode & 0o777).toBe(0o600);
    await work.replace(CHECKPOINT_FILE, '{}');
    expect(lstatSync(work.file(CHECKPOINT_FILE)).mode & 0o777).toBe(0o600);
    await work.remove();
    expect(readdirSync(root)).toEqual([]);
  });

  it('a checkpoint is never read through a link, nor taken from a directory that is not private', async () => {
    const root = freshDir('offramp-cp-');
    const binding = { out: '/x/ledger.csv', service: 'http://127.0.0.1/api/v1/partner', partner: 'p', from: 'a', to: 'b', filters: {}, format: 'csv', excel: false, raw_cells: false, summary: false, page_size: 100 };
    const real = await WorkDir.create(root);
    await new Checkpoint(real, binding, []).flush();
    expect((await findCheckpoint('/x/ledger.csv', root))?.path).toBe(real.path);

    // A link in the run directory's place, and a checkpoint that is a link: both ignored.
    const elsewhere = freshDir('offramp-cp-elsewhere-');
    writeFileSync(join(elsewhere, CHECKPOINT_FILE), readFileSync(real.file(CHECKPOINT_FILE)));
    symlinkSync(elsewhere, join(root, 'offramp-export-linked'));
    await real.remove();
    expect(await findCheckpoint('/x/ledger.csv', root)).toBeUndefined();
    const other = await WorkDir.create(root);
    symlinkSync(join(elsewhere, CHECKPOINT_FILE), other.file(CHECKPOINT_FILE));
    expect(await findCheckpoint('/x/ledger.csv', root)).toBeUndefined();
    await other.remove();
    // A group-writable one (someone else could have written it).
    const open = join(root, 'offramp-export-open');
    mkdirSync(open, { mode: 0o777 });
    writeFileSync(join(open, CHECKPOINT_FILE), readFileSync(join(elsewhere, CHECKPOINT_FILE)));
    expect(await findCheckpoint('/x/ledger.csv', root)).toBeUndefined();
    await expect(WorkDir.adopt(open)).rejects.toThrow(/not a private directory of yours/);
  });

  it("the sweep removes the user's own run directories older than a day, and nothing else", async () => {
    const root = freshDir('offramp-sweep-');
    const old = Date.now() / 1000 - 2 * DAY_S;
    const mk = async (age: number) => {
      const w = await WorkDir.create(root);
      writeFileSync(w.file('lock'), '999999999\n'); // a process that is gone
      utimesSync(w.path, age, age);
      return w.path;
    };
    const stale = await mk(old);
    const young = await mk(Date.now() / 1000);
    const live = await WorkDir.create(root); // locked by this very process
    utimesSync(live.path, old, old);
    const target = freshDir('offramp-sweep-target-');
    symlinkSync(target, join(root, 'offramp-export-link'));
    const notOurs = join(root, 'offramp-export-nobody');
    mkdirSync(notOurs, { mode: 0o700 });
    if (isRoot) chownSync(notOurs, NOBODY, NOBODY);
    utimesSync(notOurs, old, old);
    await sweepStaleWorkDirs(root);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(young)).toBe(true);
    expect(existsSync(live.path)).toBe(true);
    expect(existsSync(target)).toBe(true);
    // Only root can make it another user's here; otherwise it is the user's own, and old.
    expect(existsSync(notOurs)).toBe(isRoot);
    await live.remove();
  });
});

describe('a run killed outright (SIGKILL)', { timeout: 30_000 }, () => {
  let slow: Awaited<ReturnType<typeof emulatorFor>>;
  beforeAll(async () => {
    slow = await emulatorFor({ seedRevenue: 6000, seed: 7, latencyMs: 60, rateLimit: 40 });
  });
  afterAll(() => slow.close());

  it('leaves no file at --out; the next export removes its temporary file, and its spools once a day old', async () => {
    const dir = freshDir('offramp-kill-out-');
    const tmp = freshDir('offramp-kill-tmp-');
    const out = join(dir, 'ledger.csv');
    const run = spawnExport(['--from', day(-180), '--to', day(0), '--out', out], { env: slow.env, tmp });
    const caught = await until(() => {
      const temp = tempsOf(dir, 'ledger.csv')[0];
      return temp !== undefined && sizeOf(join(dir, temp)) > 2000 && workDirs(tmp).length > 0;
    });
    expect(caught, run.stderr()).toBe(true);
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    expect(existsSync(out)).toBe(false);
    expect(tempsOf(dir, 'ledger.csv')).toHaveLength(1);
    const [spools] = workDirs(tmp);

    const again = await spawnExport(['--from', day(-3), '--to', day(-3), '--out', out], { env: slow.env, tmp }).done;
    expect(again.code, again.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['ledger.csv']);
    // The killed run's spools are less than a day old: kept (another run of the user's may own them).
    expect(workDirs(tmp)).toEqual([spools]);
    const old = Date.now() / 1000 - 2 * DAY_S;
    utimesSync(join(tmp, spools!), old, old);
    const third = await spawnExport(['--from', day(-3), '--to', day(-3), '--out', out], { env: slow.env, tmp }).done;
    expect(third.code, third.stderr).toBe(0);
    expect(workDirs(tmp)).toEqual([]);
  });
});
