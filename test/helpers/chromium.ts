// Debian's chromium, headless, for what a real browser does with a page: renders a report,
// or runs a hostile page's script against a server of this process. Nothing leaves this
// machine of the browser's own accord (no QUIC, updates, sync or background requests).
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The browser's command, or undefined when none is installed (its tests skip, saying so). */
export const CHROMIUM = ['chromium', 'chromium-browser'].find((c) => spawnSync(c, ['--version'], { stdio: 'ignore' }).status === 0);

/**
 * Runs it headless with its own profile under `dir` (no sandbox: tests may run as root);
 * fails with its stderr when it does not exit 0. Asynchronous, so that the servers a page
 * talks to can answer from this process meanwhile.
 */
export function browser(dir: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
  return new Promise((resolve, reject) => {
    execFile(CHROMIUM!, [...flags, `--user-data-dir=${join(dir, 'profile')}`, ...args], { encoding: 'utf8', timeout: 60_000, cwd: dir, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`chromium failed (${err.message}): ${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}
