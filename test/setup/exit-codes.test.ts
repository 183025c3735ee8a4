// Exit codes a script can rely on (issue #16, item 8): with stderr closed the run's own
// exit code survives, rather than the crash of a failed write (1).
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, tempHome } from '../helpers/cli.js';

describe('exit codes', () => {
  it('survive a closed stderr', async () => {
    const child = spawn(process.execPath, [BIN, 'tx', 'get', '0b6f6a4e-6d2b-4c57-9a57-2a3f1f0e9a91', '--retries', '0'], {
      env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, ...tempHome().env, CI: 'true', OFFRAMP_API_KEY: 'sk_test_exit', OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(7);
  });
});
