// "Nothing hijackable": every temporary path of an export is created exclusively
// under a name nobody can guess (the file beside --out) or in a directory only the user can
// enter (an export's FILE.offramp-resume), so a link or a file planted there by
// someone else is never written through, read as ours, or removed; spools are unlinked as
// soon as they are made, so even a killed export leaves none. In process, with the
// randomness fixed where a test must know a name in advance; the SIGKILL case runs the
// built binary.
import { chownSync, fstatSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AtomicFile } from '../../src/lib/fs/atomic.js';
import { Spool } from '../../src/lib/revenue/spool.js';
import { readCheckpoint, ResumeDir } from '../../src/lib/revenue/resume.js';
import { isRoot, NOBODY } from '../helpers/root.js';
import { emulatorFor } from '../helpers/emulator.js';
import { day, freshDir, leftovers, resumeDirOf, sizeOf, spawnExport, tempsOf, until } from './export-helpers.js';


/** A fresh directory holding a file someone would like us to overwrite. */
function withVictim(prefix: string) {
  const dir = freshDir(prefix);
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'precious');
  return { dir, victim };
}

// The file beside --out is an AtomicFile: its own tests are in test/fs/atomic.test.ts.

describe('spools and the resume directory', () => {
  it('a spool is private and has no name: created 0600 and unlinked in one step; it reads back what was written', async () => {
    const spool = Spool.anonymous();
    try {
      const st = fstatSync(spool.fd);
      expect(st.mode & 0o777).toBe(0o600);
      expect(st.nlink).toBe(0);
      const lines = Array.from({ length: 3000 }, (_, i) => `{"n":${i},"ref":"ünïcødé ₦ ${'x'.repeat(i % 50)}"}`);
      await spool.append(`${lines.slice(0, 1000).join('\n')}\n`);
      await spool.append(`${lines.slice(1000).join('\n')}\n`);
      const read: string[] = [];
      for await (const line of spool.lines()) read.push(line);
      expect(read).toEqual(lines);
    } finally {
      await spool.close();
    }
  });

  it('the resume directory is private (0700), its checkpoint 0600; it is found again, then removed whole', async () => {
    const out = join(freshDir('offramp-resume-dir-'), 'ledger.csv');
    const binding = { service: 'http://127.0.0.1/api/v1/partner', partner: 'p', from: 'a', to: 'b', tz: 'UTC', filters: {}, format: 'csv', excel: false, raw_cells: false, summary: false, page_size: 100 };
    const dir = await ResumeDir.take(out);
    expect(lstatSync(dir.path).mode & 0o777).toBe(0o700);
    await dir.save({ binding, slices: [] });
    expect(lstatSync(join(dir.path, 'checkpoint.json')).mode & 0o777).toBe(0o600);
    // Held by this run: a second run is refused.
    await expect(ResumeDir.take(out)).rejects.toThrow(/another export \(pid \d+\) is using/);
    await dir.release();
    expect(await readCheckpoint(out)).toEqual({ binding, slices: [] });
    await (await ResumeDir.take(out)).remove();
    expect(readdirSync(join(out, '..'))).toEqual([]);
  });

  it('a link or a directory others can enter, planted where the resume directory goes, is refused and never read', async () => {
    const out = join(freshDir('offramp-resume-link-'), 'ledger.csv');
    const elsewhere = freshDir('offramp-resume-elsewhere-');
    writeFileSync(join(elsewhere, 'checkpoint.json'), JSON.stringify({ kind: 'offramp-revenue-export-checkpoint', version: 2, binding: {}, slices: [] }));
    symlinkSync(elsewhere, resumeDirOf(out));
    expect(await readCheckpoint(out)).toBeUndefined();
    await expect(ResumeDir.take(out)).rejects.toThrow(/is not a directory/);
    expect(readdirSync(elsewhere)).toEqual(['checkpoint.json']);

    const open = join(freshDir('offramp-resume-open-'), 'ledger.csv');
    mkdirSync(resumeDirOf(open), { mode: 0o777 });
    writeFileSync(join(resumeDirOf(open), 'checkpoint.json'), readFileSync(join(elsewhere, 'checkpoint.json')));
    expect(await readCheckpoint(open)).toBeUndefined();
    await expect(ResumeDir.take(open)).rejects.toThrow(/is not a private directory of yours/);
  });

  it.runIf(isRoot)('a resume directory owned by another user is refused', async () => {
    const theirs = join(freshDir('offramp-resume-theirs-'), 'ledger.csv');
    mkdirSync(resumeDirOf(theirs), { mode: 0o700 });
    chownSync(resumeDirOf(theirs), NOBODY, NOBODY);
    await expect(ResumeDir.take(theirs)).rejects.toThrow(/is not a private directory of yours/);
  });
});

describe('a run killed outright (SIGKILL)', { timeout: 30_000 }, () => {
  let slow: Awaited<ReturnType<typeof emulatorFor>>;
  beforeAll(async () => {
    slow = await emulatorFor({ seedRevenue: 6000, seed: 7, latencyMs: 60, rateLimit: 40 });
  });
  afterAll(() => slow.close());

  it('leaves no file at --out and nothing in TMPDIR; the next export removes its temporary file and the old checkpoint', async () => {
    const dir = freshDir('offramp-kill-out-');
    const tmp = freshDir('offramp-kill-tmp-');
    const out = join(dir, 'ledger.csv');
    const run = spawnExport(['--from', day(-180), '--to', day(0), '--out', out], { env: slow.env, tmp });
    const caught = await until(() => {
      const temp = tempsOf(dir, 'ledger.csv')[0];
      return temp !== undefined && sizeOf(join(dir, temp)) > 2000;
    });
    expect(caught, run.stderr()).toBe(true);
    // Midway, with slices read ahead: their spools have no name to leave behind.
    expect(leftovers(tmp)).toEqual([]);
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    // Its temporary file, and the checkpoint directory that lets the export be continued.
    expect(readdirSync(dir).sort()).toEqual([...tempsOf(dir, 'ledger.csv'), 'ledger.csv.offramp-resume'].sort());
    expect(tempsOf(dir, 'ledger.csv')).toHaveLength(1);
    expect(leftovers(tmp)).toEqual([]);

    const again = await spawnExport(['--from', day(-3), '--to', day(-3), '--out', out], { env: slow.env, tmp }).done;
    expect(again.code, again.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['ledger.csv']);
    expect(leftovers(tmp)).toEqual([]);
  });
});
