// Node 20's code cache for dist/ (src/compile-cache.ts), which dist/main.js sets up there
// before a command loads. On Node 22.1+ the binary uses Node's own cache instead, so these
// tests start the built CLI through a small entry that installs ours first, on any Node:
// what a user sees is the same output, and cache files written once, then read, never
// trusted blindly.
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { emulatorFor } from '../helpers/emulator.js';

const DIST = new URL('../../dist', import.meta.url).pathname;
const entryDir = mkdtempSync(join(tmpdir(), 'offramp-cc-'));
const ENTRY = join(entryDir, 'entry.cjs');
writeFileSync(ENTRY, `require(${JSON.stringify(`${DIST}/compile-cache.js`)}).install({ dist: ${JSON.stringify(DIST)}, env: process.env });\nrequire(${JSON.stringify(`${DIST}/main.js`)});\n`);

let emu: Awaited<ReturnType<typeof emulatorFor>>;
let txId: string;

beforeAll(async () => {
  emu = await emulatorFor();
  const created = await runCli(['tx', 'create', '--fiat-amount', '50000', '--token', 'usdt', '--network', 'bep20', '--ref', 'cc-1', '--json'], { env: emu.env });
  expect(created.code, created.stderr).toBe(0);
  txId = (JSON.parse(created.stdout) as { id: string }).id;
});
afterAll(() => emu.close());

/** The CLI through the cache-installing entry, with the cache under `cacheRoot`. */
function run(args: string[], cacheRoot: string, env: Record<string, string> = {}, entry = ENTRY): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], {
      env: { PATH: process.env.PATH, ...emu.env, NO_COLOR: '1', CI: 'true', NODE_COMPILE_CACHE: cacheRoot, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Each cache file (by name) with its inode and mtime: a file V8 refused is written anew (a new inode). */
function cacheFiles(cacheRoot: string): Map<string, string> {
  const files = new Map<string, string>();
  const root = join(cacheRoot, readdirSync(cacheRoot).find((n) => n.startsWith('offramp-compile-cache'))!);
  for (const build of readdirSync(root)) {
    for (const name of readdirSync(join(root, build))) {
      const st = statSync(join(root, build, name));
      files.set(`${build}/${name}`, `${st.ino}:${st.mtimeMs}`);
    }
  }
  return files;
}

const freshRoot = () => mkdtempSync(join(tmpdir(), 'offramp-cache-root-'));

describe('compile cache (Node 20)', () => {
  it('the first run writes a private cache for each file of dist/ it compiled; the next reads it and writes nothing', async () => {
    const root = freshRoot();
    const plain = await runCli(['tx', 'get', txId, '--json'], { env: { ...emu.env, NODE_DISABLE_COMPILE_CACHE: '1' } });
    expect(plain.code, plain.stderr).toBe(0);

    const first = await run(['tx', 'get', txId, '--json'], root);
    expect(first).toEqual(plain);
    const written = cacheFiles(root);
    const names = [...written.keys()].map((k) => k.split('/')[1]!);
    expect(names.some((n) => /^main\.js@[\d-]+$/.test(n)), names.join(' ')).toBe(true);
    expect(names.some((n) => /^chunks__http-\w+\.js@[\d-]+$/.test(n)), names.join(' ')).toBe(true);
    const [dirName] = readdirSync(root).filter((n) => n.startsWith('offramp-compile-cache'));
    const buildDir = join(root, dirName!, [...written.keys()][0]!.split('/')[0]!);
    expect(buildDir).toMatch(new RegExp(`[0-9a-f]{16}-node${process.versions.node}-${process.arch}$`));
    if (process.platform !== 'win32') {
      expect(statSync(join(root, dirName!)).mode & 0o777).toBe(0o700);
      for (const name of names) expect(statSync(join(buildDir, name)).mode & 0o777, name).toBe(0o600);
    }

    const second = await run(['tx', 'get', txId, '--json'], root);
    expect(second).toEqual(plain);
    expect(cacheFiles(root)).toEqual(written);
  });

  it.each([
    ['garbage', (data: Buffer) => Buffer.from('not a code cache')],
    // V8 does not checksum a cache in release builds: it would run this one, and crash.
    ['one byte changed, same length', (data: Buffer) => {
      const copy = Buffer.from(data);
      copy[Math.floor(copy.length / 2)]! ^= 0x5a;
      return copy;
    }],
  ])('a damaged cache (%s) is refused: the run is unharmed and the cache written again', async (_, damage) => {
    const root = freshRoot();
    await run(['tx', 'get', txId, '--json'], root);
    const before = cacheFiles(root);
    const [dirName] = readdirSync(root).filter((n) => n.startsWith('offramp-compile-cache'));
    for (const key of before.keys()) writeFileSync(join(root, dirName!, key), damage(readFileSync(join(root, dirName!, key))));

    const r = await run(['tx', 'get', txId, '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: txId });
    const after = cacheFiles(root);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [key, id] of after) expect(id, key).not.toBe(before.get(key));
  });

  it('a dist/ file edited in place, same length, runs as edited (V8 alone would take the old code)', async () => {
    const root = freshRoot();
    const copy = mkdtempSync(join(tmpdir(), 'offramp-dist-copy-'));
    cpSync(DIST, join(copy, 'dist'), { recursive: true });
    const entry = join(copy, 'entry.cjs');
    writeFileSync(entry, readFileSync(ENTRY, 'utf8').replaceAll(DIST, join(copy, 'dist')));
    const version = async () => (await run(['--version'], root, {}, entry)).stdout.split('\n')[0];
    expect(await version()).toMatch(/^offramp \d+\.\d+\.\d+$/);
    const [file] = readdirSync(join(copy, 'dist/chunks')).filter((f) => readFileSync(join(copy, 'dist/chunks', f), 'utf8').includes('\n// holds: src/version.ts\n'));
    const path = join(copy, 'dist/chunks', file!);
    const code = readFileSync(path, 'utf8');
    const edited = code.replace(/"(\d+)\.(\d+)\.(\d+)"/, (m) => m.replace(/\d/g, '9'));
    expect(edited.length).toBe(code.length);
    expect(edited).not.toBe(code);
    writeFileSync(path, edited);
    expect(await version()).toMatch(/^offramp 9+\.9+\.9+$/);
  });

  it('is not used where others may write (a group- or world-writable directory)', async () => {
    if (process.platform === 'win32') return;
    const root = freshRoot();
    const dir = join(root, `offramp-compile-cache-${process.getuid!()}`);
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const r = await run(['tx', 'get', txId, '--json'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('NODE_DISABLE_COMPILE_CACHE=1 turns it off', async () => {
    const root = freshRoot();
    const r = await run(['tx', 'get', txId, '--json'], root, { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(root)).toEqual([]);
  });

  it('a run that changes V8 flags (revenue export) writes no cache: V8 would refuse it in the next run', async () => {
    const root = freshRoot();
    const day = new Date().toISOString().slice(0, 10);
    const r = await run(['revenue', 'export', '--from', day, '--to', day, '-o', 'ndjson'], root);
    expect(r.code, r.stderr).toBe(0);
    const [dirName] = readdirSync(root).filter((n) => n.startsWith('offramp-compile-cache'));
    const builds = readdirSync(join(root, dirName!));
    expect(builds.flatMap((b) => readdirSync(join(root, dirName!, b)))).toEqual([]);
  });

  it.runIf(!('enableCompileCache' in nodeModule))('offramp sets it up for a command on a Node without a cache of its own, and reads it back', async () => {
    const root = freshRoot();
    const first = await runCli(['tx', 'get', txId, '--json'], { env: { ...emu.env, NODE_COMPILE_CACHE: root } });
    expect(first.code, first.stderr).toBe(0);
    const written = cacheFiles(root);
    expect([...written.keys()].some((k) => /\/chunks__cli-\w+\.js@[\d-]+$/.test(k))).toBe(true);
    const second = await runCli(['tx', 'get', txId, '--json'], { env: { ...emu.env, NODE_COMPILE_CACHE: root } });
    expect(second).toEqual(first);
    expect(cacheFiles(root)).toEqual(written);
  });
});
