// The linux-arm64 standalone executable, run on this x64 machine by qemu-user (Debian's
// qemu-user-static) with the libraries of an arm64 Debian root (scripts/debian-root.sh
// arm64): --version and the demo.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BINARY_ARM64, VERSION, run, tempHome } from './helpers.js';

const QEMU = 'qemu-aarch64-static';
/** The arm64 root: OFFRAMP_ARM64_ROOT, or made under build/ by the script on first use. */
const ROOT = process.env.OFFRAMP_ARM64_ROOT ?? new URL('../build/.work/arm64-root', import.meta.url).pathname;
const why =
  spawnSync(QEMU, ['--version']).status !== 0
    ? `${QEMU} is not installed (apt-get install qemu-user-static)`
    : process.getuid?.() !== 0 && !process.env.OFFRAMP_ARM64_ROOT
      ? 'making the arm64 root needs root (debootstrap); or give one in OFFRAMP_ARM64_ROOT'
      : spawnSync('sh', ['-c', 'command -v debootstrap']).status !== 0 && !process.env.OFFRAMP_ARM64_ROOT
        ? 'debootstrap is not installed (apt-get install debootstrap); or give an arm64 root in OFFRAMP_ARM64_ROOT'
        : undefined;

/** The arm64 executable under qemu: -L points its loader and libraries at the arm64 root. */
const arm64 = (args: string[]) => ['-L', ROOT, BINARY_ARM64, ...args];

describe.skipIf(why)(`the linux-arm64 executable under qemu-user${why ? ` (skipped: ${why})` : ''}`, { timeout: 300_000 }, () => {
  beforeAll(() => {
    execFileSync(new URL('../scripts/debian-root.sh', import.meta.url).pathname, ['arm64', ROOT], { stdio: ['ignore', 'ignore', 'inherit'] });
  });

  it('is an arm64 program that this machine runs only through qemu', () => {
    const header = execFileSync('od', ['-A', 'n', '-t', 'x1', '-j', '18', '-N', '2', BINARY_ARM64], { encoding: 'utf8' });
    // e_machine 0xb7: EM_AARCH64.
    expect(header.trim()).toBe('b7 00');
  });

  it('--version says it is the standalone build', async () => {
    const r = await run(QEMU, arm64(['--version']), { env: tempHome().env, timeoutMs: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`offramp ${VERSION} (standalone, Node.js v26.12.1)\nAPI /api/v1 (interface 1.0.0)\n`);
  });

  it('demo runs a transaction end to end', async () => {
    const home = tempHome();
    const r = await run(QEMU, arm64(['demo']), { env: home.env, cwd: join(home.dir), timeoutMs: 240_000 });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('done: 5 webhooks received, each signature verified');
    expect(r.stdout).toMatch(/partner share +125\.00 NGN/);
  });
});
