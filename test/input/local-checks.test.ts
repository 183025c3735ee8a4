// Input checked before any request (issue #16, item 14): a date-time without a zone says
// how to fix it; bytes that are not UTF-8 are refused rather than sent as U+FFFD; an amount
// too large to be one is refused locally. Port 9 of loopback: any request would fail with
// exit 7, so exit 2 proves nothing was sent.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, tempHome } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';

const env = { OFFRAMP_API_KEY: 'sk_test_input', OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner' };

describe('input checked locally', () => {
  it('a date-time without a zone names the fix', async () => {
    const r = await runMain(['revenue', 'export', '--from', '2026-01-31T10:00:00', '--to', '2026-02-01'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: USAGE: --from: "2026-01-31T10:00:00" has no time zone; add Z for UTC or an offset, like 2026-01-31T10:00:00Z or 2026-01-31T10:00:00+01:00\n');
  });

  it('a reference with bytes that are not UTF-8 is refused', async () => {
    // Raw bytes in argv, as a shell passes them (printf writes bytes 0xff 0xfe): how Node
    // decodes a process's argv is the point, so this one runs the binary.
    const child = spawn('/bin/sh', ['-c', `exec "${process.execPath}" "${BIN}" tx create --fiat-amount 5000 --token usdt --network bep20 --ref "$(printf 'order-\\377\\376-1')"`], {
      env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, ...tempHome().env, CI: 'true', ...env },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: USAGE: --ref contains bytes that are not valid UTF-8/m);
  });

  it('an amount with more integer digits than any payout is refused before sending', async () => {
    const r = await runMain(['tx', 'create', '--fiat-amount', '1234567890123456789', '--token', 'usdt', '--network', 'bep20', '--ref', 'big-1'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/has 19 digits before the point; amounts take at most 15/);
    const quote = await runMain(['quote', '--token', 'usdt', '--network', 'bep20', '--crypto-amount', '9999999999999999'], { env });
    expect(quote.code).toBe(2);
  });
});
