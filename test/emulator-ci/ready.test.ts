// Ready without sleeping: `--ready-file` appears once the emulator accepts connections (and
// never before: a stale one is removed first), `offramp emulator wait` returns as soon as
// it answers, and the README's CI recipe runs as written, built binary and all.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
});

const env = (dir: string, extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH!,
  TMPDIR: process.env.TMPDIR!,
  HOME: dir,
  OFFRAMP_CONFIG_DIR: join(dir, 'config'),
  NO_COLOR: '1',
  CI: 'true',
  OFFRAMP_RETRY_BASE_MS: '5',
  ...extra,
});

function run(args: string[], dir: string, extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: env(dir, extra), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('--ready-file', () => {
  it('replaces a stale file only once the emulator accepts connections, and is removed at the stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-ready-'));
    const file = join(dir, 'emulator.url');
    writeFileSync(file, 'http://127.0.0.1:1/api/v1/partner\n');
    const emu = run(['emulator', '--port', '0', '--ready-file', file], dir);
    await vi.waitUntil(() => existsSync(file) && readFileSync(file, 'utf8') !== 'http://127.0.0.1:1/api/v1/partner\n', { timeout: 15_000, interval: 10 });
    const url = readFileSync(file, 'utf8');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/partner\n$/);
    // The first request after the file appears is answered: no retry, no sleep.
    const res = await fetch(`${url.trim()}/transactions`, { headers: { 'x-api-key': 'sk_test_emulator' } });
    expect(res.status).toBe(200);
    expect(emu.stdout()).toBe(url);
    emu.child.kill('SIGTERM');
    expect(await emu.exited).toBe(143);
    expect(existsSync(file)).toBe(false);
  });

  it('a file that cannot be written is a usage error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-ready-'));
    const r = await runMain(['emulator', '--port', '0', '--ready-file', join(dir, 'missing-dir', 'url')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error: USAGE: --ready-file: cannot write .*missing-dir\/url/);
  });
});

describe('offramp emulator wait', () => {
  it('started before the emulator, returns as soon as it answers, with its base URL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-ready-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/api/v1/partner`;
    const waiting = run(['emulator', 'wait', '--timeout', '15000'], dir, { OFFRAMP_BASE_URL: base });
    // Not up yet: wait is still trying.
    expect(waiting.child.exitCode).toBe(null);
    run(['emulator', '--port', String(port)], dir);
    expect(await waiting.exited).toBe(0);
    expect(waiting.stdout()).toBe(`${base}\n`);
  });
});

describe('the README CI recipe', () => {
  it('runs as written: emulator in the background, wait, smoke with --report github, no sleep', async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const recipe = readme.slice(readme.indexOf('### CI smoke job against the emulator'));
    const yaml = recipe.slice(recipe.indexOf('```yaml'), recipe.indexOf('```', recipe.indexOf('```yaml') + 7));
    expect(yaml).not.toMatch(/\bsleep\b/);
    // The run steps, in order, as a shell script (`offramp` is the built binary).
    const steps = [...yaml.matchAll(/^\s+- run: (.+)$/gm)].map((m) => m[1]!).filter((s) => !s.startsWith('npm install'));
    expect(steps).toEqual([
      'offramp emulator --ready-file emulator.url > emulator.log 2>&1 &',
      'offramp emulator wait --timeout 15s',
      'offramp smoke --junit smoke.xml --report github',
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'offramp-recipe-'));
    const port = await freePort();
    const summary = join(dir, 'summary.md');
    const script = [
      'set -e',
      `offramp() { "${process.execPath}" "${BIN}" "$@"; }`,
      // The recipe's emulator, on a free port instead of 4010 (the test's only change).
      steps[0]!.replace('offramp emulator', `"${process.execPath}" "${BIN}" emulator --port ${port}`).replace(/ &$/, ' & EMU=$!'),
      steps[1],
      steps[2],
      'kill $EMU',
      'wait $EMU || true',
    ].join('\n');
    const shell = spawn('bash', ['-c', script], {
      cwd: dir,
      env: env(dir, { OFFRAMP_BASE_URL: `http://127.0.0.1:${port}/api/v1/partner`, OFFRAMP_API_KEY: 'sk_test_emulator', GITHUB_STEP_SUMMARY: summary }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(shell);
    let out = '';
    shell.stdout.on('data', (d: Buffer) => (out += d));
    shell.stderr.on('data', (d: Buffer) => (out += d));
    const code = await new Promise<number | null>((resolve) => shell.once('close', resolve));
    expect(code, out).toBe(0);
    // The emulator has no endpoint: smoke receives its deliveries itself, so every check runs.
    expect(out).toContain('6 checks: 6 passed, 0 failed, 0 skipped');
    expect(out).toMatch(/^PASS  deliveries: .*\n +5 delivered to smoke's receiver, each signature verified/m);
    expect(readFileSync(summary, 'utf8')).toMatch(/### ✅ offramp smoke \(completed\): 6 passed/);
    expect(existsSync(join(dir, 'smoke.xml'))).toBe(true);
    expect(readFileSync(join(dir, 'emulator.log'), 'utf8')).toMatch(/ready: base URL written to emulator\.url/);
  });
});
