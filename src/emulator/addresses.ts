// Deposit addresses and chain identifiers that look like the real thing for their network,
// so a partner's address validation and QR rendering can be exercised: EVM networks get a
// 0x-prefixed 20-byte hex address (lower-case, which every EVM tool accepts without a
// checksum), Tron a base58check address starting with T. Nothing here is a real wallet.
import { createHash, randomFillSync } from 'node:crypto';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

// Random bytes come from a pool refilled 4 KiB at a time: one getrandom call per ~200
// addresses instead of one per address, which shows on the create path under load.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

function take(size: number): number {
  if (poolOffset + size > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += size;
  return poolOffset - size;
}

function randomHex(size: number): string {
  const at = take(size);
  return pool.toString('hex', at, at + size);
}

export function depositAddress(network: string): string {
  if (network === 'trc20') return tronAddress();
  return `0x${randomHex(20)}`;
}

/** A simulated transaction hash for deposit events (0x + 32 bytes; Tron hashes drop the 0x). */
export function chainHash(network: string): string {
  const hex = randomHex(32);
  return network === 'trc20' ? hex : `0x${hex}`;
}

export function depositId(): string {
  return `dep_${randomHex(12)}`;
}

function tronAddress(): string {
  const at = take(20);
  // concat copies: the pool may be refilled under a view of it.
  const payload = Buffer.concat([Buffer.from([0x41]), pool.subarray(at, at + 20)]);
  const checksum = sha256(sha256(payload)).subarray(0, 4);
  return base58(Buffer.concat([payload, checksum]));
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

function base58(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}
