// `offramp webhooks listen` as a child process on a free port: its URL once it says it is
// listening, its stdout lines as they come, and a SIGINT stop that resolves with the exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, tempHome } from './cli.js';

const running: ChildProcess[] = [];

/** Kills every listener still running (afterEach). */
export function killListeners(): void {
  for (const c of running.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
}

/** `env` adds to a fresh home; the secret is given in it (OFFRAMP_WEBHOOK_SECRET) or in `args`. */
export function startListener(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0', ...args], {
    env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, CI: 'true', NO_COLOR: '1', ...tempHome().env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  const url = (async () => {
    for (let i = 0; i < 400; i++) {
      const m = /Listening for webhooks on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr);
      if (m && stderr.includes('Press Ctrl-C to stop.')) return m[1]!;
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`listener did not start: ${stderr}`);
  })();
  const lines = async (n: number) => {
    for (let i = 0; i < 400 && stdout.split('\n').filter(Boolean).length < n; i++) await new Promise((r) => setTimeout(r, 25));
    return stdout.split('\n').filter(Boolean);
  };
  const stop = async () => {
    child.kill('SIGINT');
    return done;
  };
  return { url, lines, stop, stderr: () => stderr };
}
