// Progress on a terminal (rows so far of the service's count, slices done of all,
// rate and time left): the built binary in a pseudo-terminal, exporting a seeded ledger to a
// file. The same export in process (main), stderr not a terminal, prints no progress, only
// its closing line.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/main.js';
import { emulatorFor } from '../helpers/emulator.js';
import { runInPty } from '../helpers/pty.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => {
  // Slow enough answers that the spinner redraws between pages.
  emu = await emulatorFor({ seedRevenue: 3_000, latencyMs: 15 });
});
afterAll(async () => {
  await emu.close();
});

const DAY = 86_400_000;
const window = () => ['--from', new Date(Date.now() - 181 * DAY).toISOString(), '--to', new Date(Date.now() + 60_000).toISOString()];

describe('revenue export progress', { timeout: 60_000 }, () => {
  it('shows rows of the total, slices, rate and ETA on a terminal, then the closing line; the file has every row', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'offramp-progress-')), 'ledger.csv');
    const s = runInPty(['revenue', 'export', ...window(), '-o', 'csv', '--out', out], emu.env);
    await s.waitFor(/exporting: [\d,]+ of ~3,000 rows · slices \d+\/\d+ · [\d,]+ rows\/s · ETA \d+:\d\d/);
    const r = await s.done;
    expect(r.code).toBe(0);
    expect(r.output).toMatch(/Exported 3,000 rows \(\d+ slices, \d+ pages\) to .*ledger\.csv/);
    expect(readFileSync(out, 'utf8').trimEnd().split('\r\n')).toHaveLength(3_001);
  });

  it('prints no progress when stderr is not a terminal', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'offramp-progress-')), 'ledger.csv');
    const r = await runMain(['revenue', 'export', ...window(), '-o', 'csv', '--out', out], { env: emu.env });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/exporting/);
    expect(r.stderr).toMatch(/Exported 3,000 rows/);
  });
});
