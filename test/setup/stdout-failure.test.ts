// Output that cannot be written (stdout on a full disk) is a failure said in one line,
// exit 1, never a stack trace; whichever path wrote it (the --version and --help fast
// paths, or a command through the parser).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BIN, tempHome } from '../helpers/cli.js';

function runToDevFull(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const full = openSync('/dev/full', 'w');
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, CI: 'true', NO_COLOR: '1', ...tempHome().env }, stdio: ['ignore', full, 'pipe'] });
  // The child has its own copy of the descriptor.
  closeSync(full);
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe.skipIf(!existsSync('/dev/full'))('stdout on a full disk', { timeout: 20_000 }, () => {
  it.each([
    ['--version', ['--version']],
    ['--help', ['--help']],
    ['a command (completion bash)', ['completion', 'bash']],
  ])('%s: one line, exit 1', async (_what, args) => {
    const r = await runToDevFull(args);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: DISK_FULL: no space left on the device (stdout)\n');
  });
});
