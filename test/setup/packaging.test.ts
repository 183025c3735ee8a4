// What `npm pack` ships, and that the packed tarball installs globally and runs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packed } from '../helpers/pack.js';

const root = new URL('../..', import.meta.url).pathname;
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('npm pack', () => {
  it('ships the compiled CLI, completions and README, and nothing else', async () => {
    const { files } = await packed();
    // The two package.json files mark bin/ and dist/ CommonJS (scripts/build.mjs): without
    // them Node would load both as ESM and fail.
    expect(files).toEqual(expect.arrayContaining(['bin/offramp.js', 'bin/package.json', 'dist/package.json', 'dist/main.js', 'dist/help.json', 'dist/THIRD-PARTY-NOTICES.txt', 'completions/offramp.bash', 'README.md', 'package.json']));
    const unwanted = files.filter((f) => /^(src|test|bench|scripts|\.ci)\/|\.map$|\.ts$|\.env|config\.json$|\.tgz$|node_modules/.test(f));
    expect(unwanted).toEqual([]);
  });

  it('declares no runtime dependencies: everything it runs is bundled into dist/', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: object };
    expect(pkg.dependencies ?? {}).toEqual({});
  });

  it('ships the licence of every bundled package', () => {
    const notices = readFileSync(join(root, 'dist/THIRD-PARTY-NOTICES.txt'), 'utf8');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    // The runtime packages of the design card, each with its version and licence text.
    for (const name of ['commander', '@inquirer/prompts', 'undici', 'zod', 'string-width', 'chalk', 'ora', 'conf', 'decimal.js', 'csv-stringify', 'hono']) {
      expect(Object.keys(pkg.devDependencies)).toContain(name);
      const version = (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
      const section = notices.split(/\n-{72}\n/).find((part) => part.trimStart().startsWith(`${name} ${version} (MIT)\n`));
      expect(section, name).toMatch(/Permission is hereby granted, free of charge/);
    }
    expect(notices).not.toMatch(/no licence file/);
    // Test-only packages are not bundled, so not listed.
    expect(notices).not.toMatch(/^vitest /m);
  });

  it('installs globally from the tarball alone and works: version, profiles, the whole demo', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-pack-'));
    const { tarball } = await packed();
    // --offline: the package has no dependencies to fetch, and tests never reach past
    // loopback. --ignore-scripts everywhere: the build (prepare) must not rerun
    // under the other tests' feet; the tarball is already built.
    // --omit=optional: as on a platform @napi-rs/keyring has no binary for, the CLI must
    // install and run without it, keeping keys in the config file.
    npm(['install', '-g', '--offline', '--ignore-scripts', '--omit=optional', '--no-audit', '--no-fund', '--prefix', join(dir, 'global'), tarball], dir);
    const offramp = (args: string[], input?: string) =>
      execFileSync(join(dir, 'global', 'bin', 'offramp'), args, {
        encoding: 'utf8',
        cwd: dir,
        input,
        env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, HOME: dir, OFFRAMP_CONFIG_DIR: join(dir, 'config'), CI: 'true', NO_COLOR: '1', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    expect(offramp(['--version'])).toMatch(/^offramp \d+\.\d+\.\d+\nAPI \/api\/v1/);
    offramp(['profile', 'add', 'dev', '--env', 'local']);
    expect(JSON.parse(offramp(['profile', 'list', '--json']))).toEqual([expect.objectContaining({ name: 'dev', env: 'local' })]);
    offramp(['profile', 'add', 'st', '--env', 'local', '--api-key-stdin'], 'sk_test_packaged\n');
    expect(JSON.parse(offramp(['profile', 'list', '--json']))).toContainEqual(expect.objectContaining({ name: 'st', api_key_in: 'file' }));
    // The demo runs the emulator, the client, the webhook receiver and every renderer.
    expect(offramp(['demo'])).toMatch(/ledger row/);
  }, 120_000);
});
