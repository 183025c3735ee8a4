// The reader of Node 20's code cache (src/compile-cache.ts): it hands V8 only a file that
// is the user's own and that nobody else may write. (Damage is V8's to detect, told to
// verify each cache's checksum; a real run with a damaged cache is in
// test/e2e/compile-cache.test.ts.)
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCache } from '../../src/compile-cache.js';

const uid = process.getuid?.();

function cacheFile(data: Buffer): string {
  const file = join(mkdtempSync(join(tmpdir(), 'offramp-cc-unit-')), 'cache');
  writeFileSync(file, data, { mode: 0o600 });
  return file;
}

describe('readCache', () => {
  it('returns the contents of a private file; nothing for a missing one', () => {
    const data = Buffer.from('cached code, as V8 wrote it');
    expect(readCache(cacheFile(data), uid)).toEqual(data);
    expect(readCache(join(tmpdir(), 'offramp-no-such-cache'), uid)).toBeUndefined();
  });

  it.skipIf(uid === undefined)('refuses a file others may write, or one owned by someone else', () => {
    const data = Buffer.from('cached code');
    const file = cacheFile(data);
    chmodSync(file, 0o666);
    expect(readCache(file, uid)).toBeUndefined();
    chmodSync(file, 0o620);
    expect(readCache(file, uid)).toBeUndefined();
    chmodSync(file, 0o644);
    expect(readCache(file, uid! + 1)).toBeUndefined();
    expect(readCache(file, uid)).toEqual(data);
  });
});
