// The pure parts of Node 20's code cache (src/compile-cache.ts): the hash that guards each
// cache file against damage, and the reader that checks it (V8 itself would accept a
// damaged cache and crash on it). The cache's behaviour in a real run is in
// test/e2e/compile-cache.test.ts.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashOf, readCache } from '../../src/compile-cache.js';

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) & 0xff);

function cacheFile(data: Uint8Array, hash = hashOf(data), magic = 'ofc1'): string {
  const header = Buffer.alloc(8);
  header.write(magic, 0, 'latin1');
  header.writeUInt32LE(hash, 4);
  const file = join(mkdtempSync(join(tmpdir(), 'offramp-cc-unit-')), 'cache');
  writeFileSync(file, Buffer.concat([header, data]), { mode: 0o600 });
  return file;
}

describe('hashOf', () => {
  it('is a 32-bit number that changes with any single flipped bit, including in the last bytes', () => {
    const data = bytes(1027); // three tail bytes past the last whole word
    const h = hashOf(data);
    expect(h).toBeGreaterThanOrEqual(0);
    expect(h).toBeLessThan(2 ** 32);
    for (const at of [0, 1, 500, 1023, 1024, 1026]) {
      for (const bit of [0, 7]) {
        const flipped = data.slice();
        flipped[at]! ^= 1 << bit;
        expect(hashOf(flipped), `byte ${at} bit ${bit}`).not.toBe(h);
      }
    }
  });

  it('hashes the same bytes the same wherever they start in memory', () => {
    const data = bytes(301);
    const unaligned = new Uint8Array(data.length + 1).subarray(1);
    unaligned.set(data);
    expect(unaligned.byteOffset % 4).not.toBe(0);
    expect(hashOf(unaligned)).toBe(hashOf(data));
    expect(hashOf(new Uint8Array(0))).toBe(hashOf(new Uint8Array(0)));
    expect(hashOf(bytes(8))).not.toBe(hashOf(bytes(9)));
  });
});

describe('readCache', () => {
  const uid = process.getuid?.();

  it("returns V8's data from a whole, private file", () => {
    const data = bytes(4096);
    expect(readCache(cacheFile(data), uid)).toEqual(Buffer.from(data));
  });

  it('refuses a file with a byte changed, a wrong hash, another format, no data, or none at all', () => {
    const data = bytes(4096);
    const damaged = data.slice();
    damaged[2000]! ^= 0x10;
    expect(readCache(cacheFile(damaged, hashOf(data)), uid)).toBeUndefined();
    expect(readCache(cacheFile(data, hashOf(data) ^ 1), uid)).toBeUndefined();
    expect(readCache(cacheFile(data, hashOf(data), 'xxxx'), uid)).toBeUndefined();
    expect(readCache(cacheFile(new Uint8Array(0)), uid)).toBeUndefined();
    expect(readCache(join(tmpdir(), 'offramp-no-such-cache'), uid)).toBeUndefined();
  });

  it.skipIf(uid === undefined)('refuses a file others may write, or one owned by someone else', () => {
    const file = cacheFile(bytes(64));
    chmodSync(file, 0o666);
    expect(readCache(file, uid)).toBeUndefined();
    chmodSync(file, 0o600);
    expect(readCache(file, uid! + 1)).toBeUndefined();
    expect(readCache(file, uid)).toEqual(Buffer.from(bytes(64)));
  });
});
