// Running the shipped forms as a user's machine would: a program and its arguments, its
// exit code and output; and a long-running one (the emulator) whose first line is its URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = new URL('..', import.meta.url).pathname;
export const BINARY_X64 = join(root, 'build', 'offramp-linux-x64');
export const BINARY_ARM64 = join(root, 'build', 'offramp-linux-arm64');
export const VERSION: string = (await import('../package.json', { with: { type: 'json' } })).default.version;

export type Result = { code: number | null; stdout: string; stderr: string };

/** A fresh home: no profile, no config of the machine's user. */
export function tempHome(): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'offramp-home-'));
  return { dir, env: { HOME: dir, XDG_CONFIG_HOME: join(dir, '.config'), OFFRAMP_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1', CI: 'true' } };
}

/** The environment a run gets: PATH, TMPDIR and what the test gives, nothing else of ours. */
function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, ...env };
}

/** Runs `cmd` to its end (killed after `timeoutMs`, which then shows as code null). */
export function run(cmd: string, args: string[], opts: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: environment(opts.env ?? {}), cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export type Started = { child: ChildProcess; firstLine: string; stderr: () => string; stop: () => Promise<number | null> };

/** Starts a long-running program and answers once it printed its first stdout line. */
export function start(cmd: string, args: string[], opts: { env?: Record<string, string> } = {}): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: environment(opts.env ?? {}), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const closed = new Promise<number | null>((done) => child.on('close', done));
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return closed;
    };
    child.on('error', reject);
    void closed.then((code) => reject(new Error(`${cmd} ended (${code}) before its first line: ${stderr}`)));
    createInterface({ input: child.stdout }).once('line', (firstLine) => resolve({ child, firstLine, stderr: () => stderr, stop }));
  });
}
