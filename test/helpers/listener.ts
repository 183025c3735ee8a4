// `offramp webhooks listen` on a free port, in process (`listenInProcess`: main with an abort
// signal for Ctrl-C) or as a child process (`startListener`: for a lock held by another
// process, a kill, a real signal): its URL once it says it is listening, its stdout lines
// as they come, and a stop that resolves with the exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { vi } from 'vitest';
import { main } from '../../src/cli.js';
import { BIN, tempHome } from './cli.js';

const running: ChildProcess[] = [];
const inProcess: AbortController[] = [];

/** Kills every listener still running (afterEach); one in process is stopped as by Ctrl-C. */
export function killListeners(): void {
  for (const c of running.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const a of inProcess.splice(0)) a.abort();
}

type Exit = { code: number | null; stdout: string; stderr: string };

/** The URL once the listener printed its last start-up line; fails if it ended before. */
async function listening(stderr: () => string, ended: () => boolean): Promise<string> {
  const url = await vi.waitFor(
    () => {
      const m = /Listening for webhooks on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr());
      if (m && stderr().includes('Press Ctrl-C to stop.')) return m[1]!;
      if (!ended()) throw new Error(`listener did not start: ${stderr()}`);
      return undefined;
    },
    { timeout: 10_000, interval: 25 },
  );
  if (url === undefined) throw new Error(`listener ended before it started: ${stderr()}`);
  return url;
}

/** The first `n` lines of stdout, or what there is after ~10 s. */
async function firstLines(stdout: () => string, n: number): Promise<string[]> {
  const lines = () => stdout().split('\n').filter(Boolean);
  await vi.waitUntil(() => lines().length >= n, { timeout: 10_000, interval: 25 }).catch(() => undefined);
  return lines();
}

/** `webhooks listen` through main in process; `stop` plays Ctrl-C (exit 130). `env` adds to a fresh home. */
export function listenInProcess(args: string[], env: Record<string, string> = {}) {
  const stdin = new PassThrough();
  stdin.end();
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  err.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const abort = new AbortController();
  inProcess.push(abort);
  let ended = false;
  const done: Promise<Exit> = main(['webhooks', 'listen', '--port', '0', ...args], {
    stdin,
    stdout: out,
    stderr: err,
    env: { ...tempHome().env, CI: 'true', NO_COLOR: '1', ...env },
    signal: abort.signal,
  }).then((code) => {
    ended = true;
    return { code, stdout, stderr };
  });
  return {
    url: listening(() => stderr, () => ended),
    lines: (n: number) => firstLines(() => stdout, n),
    stop: () => (abort.abort(), done),
    stderr: () => stderr,
  };
}

/** `env` adds to a fresh home; the secret is given in it (OFFRAMP_WEBHOOK_SECRET) or in `args`. */
export function startListener(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0', ...args], {
    ...(cwd !== undefined ? { cwd } : {}),
    env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, CI: 'true', NO_COLOR: '1', ...tempHome().env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<Exit>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  const url = listening(() => stderr, () => child.exitCode !== null);
  const lines = (n: number) => firstLines(() => stdout, n);
  const stop = async () => {
    child.kill('SIGINT');
    return done;
  };
  return { url, lines, stop, stderr: () => stderr, kill: () => (child.kill('SIGKILL'), done), pid: child.pid! };
}
