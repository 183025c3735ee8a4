// A file written aside and renamed (src/lib/fs/atomic.ts): the temporary path beside it is
// created exclusively under a name nobody can guess, so a link or a file planted there by
// someone else is never written through or read as ours; the file appears whole or not at
// all, with the mode asked for; what killed writers left is removed only when it is the
// user's own. In process, with the randomness fixed where a test must know a name.
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AtomicFile, writeAside } from '../../src/lib/fs/atomic.js';
import { isRoot, NOBODY } from '../helpers/root.js';

/** Above pid_max's default: no such process. */
const DEAD = 2 ** 22 + 12345;

const freshDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** A fresh directory holding a file someone would like us to overwrite. */
function withVictim(prefix: string) {
  const dir = freshDir(prefix);
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'precious');
  return { dir, victim };
}

describe('the temporary file beside FILE', () => {
  it('a link planted at the temporary name is never written through: another name is taken', async () => {
    const { dir, victim } = withVictim('offramp-tmp-link-');
    const out = join(dir, 'ledger.csv');
    const names = ['aaaa', 'bbbb'];
    symlinkSync(victim, `${out}.tmp-${process.pid}-aaaa`);
    const file = await AtomicFile.create(out, { random: () => names.shift()! });
    expect(file.tempPath).toBe(`${out}.tmp-${process.pid}-bbbb`);
    expect(lstatSync(file.tempPath).mode & 0o777).toBe(0o600);
    file.stream.end('rows\n');
    await file.commit();
    expect(readFileSync(out, 'utf8')).toBe('rows\n');
    expect(readFileSync(victim, 'utf8')).toBe('precious');
  });

  it('a file planted there (to read what is written) is left alone, never opened', async () => {
    const dir = freshDir('offramp-tmp-planted-');
    const out = join(dir, 'ledger.csv');
    const planted = `${out}.tmp-${process.pid}-cccc`;
    writeFileSync(planted, '', { mode: 0o666 });
    const names = ['cccc', 'dddd'];
    const file = await AtomicFile.create(out, { random: () => names.shift()! });
    file.stream.end('secret rows\n');
    await file.commit();
    expect(readFileSync(planted, 'utf8')).toBe('');
  });

  it.runIf(isRoot)("leftovers of dead processes are removed only when they are the user's own regular files", async () => {
    const dir = freshDir('offramp-tmp-stale-');
    const out = join(dir, 'ledger.csv');
    writeFileSync(`${out}.tmp-${DEAD}-0a0a`, 'mine');
    writeFileSync(`${out}.tmp-${DEAD}-0b0b`, 'theirs');
    chownSync(`${out}.tmp-${DEAD}-0b0b`, NOBODY, NOBODY);
    const target = join(dir, 'target');
    writeFileSync(target, 'kept');
    symlinkSync(target, `${out}.tmp-${DEAD}-0c0c`);
    const file = await AtomicFile.create(out);
    await file.abort();
    expect(readdirSync(dir).sort()).toEqual([`ledger.csv.tmp-${DEAD}-0b0b`, `ledger.csv.tmp-${DEAD}-0c0c`, 'target']);
    expect(readFileSync(target, 'utf8')).toBe('kept');
  });

  it("a live process's temporary file, and another file's, are left alone", async () => {
    const dir = freshDir('offramp-tmp-live-');
    const out = join(dir, 'ledger.csv');
    writeFileSync(`${out}.tmp-${process.ppid}-0d0d`, 'a live writer');
    writeFileSync(join(dir, `other.csv.tmp-${DEAD}-0e0e`), 'another file');
    await writeAside(out, 'rows\n');
    expect(readdirSync(dir).sort()).toEqual(['ledger.csv', `ledger.csv.tmp-${process.ppid}-0d0d`, `other.csv.tmp-${DEAD}-0e0e`]);
  });
});

describe('writeAside', () => {
  it('replaces a file whole, in the mode asked for whatever it was', async () => {
    const dir = freshDir('offramp-aside-');
    const path = join(dir, 'state.export');
    writeFileSync(path, 'the old state, longer than the new one', { mode: 0o644 });
    chmodSync(path, 0o644);
    await writeAside(path, 'new', 0o600);
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await writeAside(join(dir, 'ready.json'), '{}', 0o644);
    expect(statSync(join(dir, 'ready.json')).mode & 0o777).toBe(0o644);
    expect(readdirSync(dir).sort()).toEqual(['ready.json', 'state.export']);
  });

  it('without a mode: a new file is 0600, a replaced one keeps its own', async () => {
    const dir = freshDir('offramp-aside-mode-');
    await writeAside(join(dir, 'new'), 'x');
    expect(statSync(join(dir, 'new')).mode & 0o777).toBe(0o600);
    writeFileSync(join(dir, 'shared'), 'x');
    chmodSync(join(dir, 'shared'), 0o640);
    await writeAside(join(dir, 'shared'), 'y');
    expect(statSync(join(dir, 'shared')).mode & 0o777).toBe(0o640);
  });

  it('a write that fails leaves the old file as it was and no temporary file', async () => {
    const dir = freshDir('offramp-aside-fail-');
    const path = join(dir, 'taken');
    mkdirSync(path);
    writeFileSync(join(path, 'inside'), 'kept');
    // Renaming a file over a directory fails: the write is refused after the temporary file was written.
    await expect(writeAside(path, 'data')).rejects.toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(readdirSync(dir)).toEqual(['taken']);
    expect(readFileSync(join(path, 'inside'), 'utf8')).toBe('kept');
  });
});
