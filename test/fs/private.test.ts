// Private files (src/lib/fs/private.ts), as ssh treats its keys: what the CLI creates is
// its owner's alone from the start (directories 0700, files 0600, created exclusively), and
// a file or directory someone else could change is refused with one line and a hint.
import { constants, chmodSync, lstatSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { distrust, ensurePrivateDirectory, InsecurePathError, openPrivateFile } from '../../src/lib/fs/private.js';

const fresh = () => mkdtempSync(join(tmpdir(), 'offramp-private-'));

describe('private files and directories', () => {
  it('creates a missing directory (and its parents) 0700, and a missing file 0600', async () => {
    const dir = join(fresh(), 'a', 'b');
    const { handle, created } = await openPrivateFile(join(dir, 'store.ndjson'), { flags: constants.O_RDWR | constants.O_APPEND, create: true, createDirectory: true });
    await handle.close();
    expect(created).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, '..')).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(dir, 'store.ndjson')).mode & 0o777).toBe(0o600);
    const again = await openPrivateFile(join(dir, 'store.ndjson'), { flags: constants.O_RDONLY });
    await again.handle.close();
    expect(again.created).toBe(false);
    await expect(openPrivateFile(join(dir, 'store.ndjson'), { flags: constants.O_WRONLY, exclusive: true })).rejects.toMatchObject({ code: 'EEXIST' });
  });

  it('refuses a file others can write, a directory others can write, and a symbolic link', async () => {
    const dir = fresh();
    const file = join(dir, 'store.ndjson');
    writeFileSync(file, '');
    chmodSync(file, 0o664);
    const refusal = await openPrivateFile(file, { flags: constants.O_RDONLY, what: `the store ${file}` }).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(InsecurePathError);
    expect(refusal).toMatchObject({ message: `refusing the store ${file}: it is writable by its group (mode 0664)`, hint: `chmod go-w ${file}`, exitCode: 2 });
    expect(distrust(file, statSync(file), 'file', 'the state file')).toBe('the state file is writable by its group (mode 0664)');

    chmodSync(dir, 0o777);
    await expect(ensurePrivateDirectory(dir)).rejects.toThrow(`is writable by its group and other users (mode 0777)`);
    chmodSync(dir, 0o700);

    symlinkSync(file, join(dir, 'link'));
    await expect(openPrivateFile(join(dir, 'link'), { flags: constants.O_RDONLY })).rejects.toThrow(/is a symbolic link/);
  });
});
