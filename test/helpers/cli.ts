// Runs the built `offramp` binary as a child process, the way a user or a CI script does,
// with its own config directory so no test touches a real profile.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BIN = new URL('../../bin/offramp.js', import.meta.url).pathname;

export type CliResult = { code: number | null; stdout: string; stderr: string };

export type CliOptions = {
  env?: Record<string, string | undefined>;
  stdin?: string;
  cwd?: string;
  timeoutMs?: number;
};

/** A fresh, empty home for one test: config dir, HOME and XDG dirs all inside it. */
export function tempHome(): { dir: string; configDir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'offramp-test-'));
  return {
    dir,
    configDir: join(dir, 'config'),
    env: { HOME: dir, XDG_CONFIG_HOME: join(dir, '.config'), OFFRAMP_CONFIG_DIR: join(dir, 'config') },
  };
}

export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // A test that names no home still never touches the real ~/.config.
    const home = opts.env?.OFFRAMP_CONFIG_DIR ? {} : tempHome().env;
    const env: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      // The run's temp root (test/global-setup.ts): what the CLI keeps there, its compile
      // cache on Node 20 among it, goes when the run ends.
      TMPDIR: process.env.TMPDIR,
      ...home,
      CI: 'true',
      NO_COLOR: '1',
      // Retries back off in milliseconds in tests, not seconds.
      OFFRAMP_RETRY_BASE_MS: '5',
      ...opts.env,
    };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    const child = spawn(process.execPath, [BIN, ...args], { env: env as NodeJS.ProcessEnv, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.stdin ?? '');
  });
}
