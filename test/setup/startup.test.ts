// What each kind of run loads (issue 2): `--version` and `--help` load neither the parser
// nor the HTTP client, the emulator or prompts; an API command with its key and base URL
// in the environment loads the client but not the config store or prompts. dist/ is
// CommonJS: a preloaded probe lists, at exit, every file of it the run required and every
// Node module the run loaded.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';

const probeDir = mkdtempSync(join(tmpdir(), 'offramp-startup-'));
const probe = join(probeDir, 'probe.cjs');
writeFileSync(
  probe,
  `process.on('exit', () => require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({ builtins: process.moduleLoadList, files: Object.keys(require('node:module')._cache) })));\n`,
);

/** What each file of dist/ holds, as the build recorded it (scripts/build.mjs, outside dist/). */
const MANIFEST = JSON.parse(readFileSync(new URL('../../.build/manifest.json', import.meta.url), 'utf8')) as { files: Record<string, string[]> };
const DIST = new URL('../../dist/', import.meta.url).pathname;

/** The bundled packages (and our modules) each loaded file of dist/ contains, and Node's own modules loaded. */
async function loaded(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; contents: Set<string>; builtins: string[] }> {
  const out = join(probeDir, `${Math.random().toString(36).slice(2)}.json`);
  const r = await runCli(args, { env: { NODE_OPTIONS: `--require ${probe}`, PROBE_OUT: out, ...env } });
  const probed = JSON.parse(readFileSync(out, 'utf8')) as { builtins: string[]; files: string[] };
  const builtins = probed.builtins.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
  const files = probed.files.filter((f) => /[\\/]dist[\\/]/.test(f));
  expect(files.some((f) => f.endsWith('/dist/main.js')), 'the run required dist/main.js').toBe(true);
  const contents = new Set<string>();
  for (const file of files) {
    const holds = MANIFEST.files[relative(DIST, file)];
    expect(holds, `${file} is in the build manifest`).toBeDefined();
    for (const name of holds!) contents.add(name);
  }
  // A package left out of the bundle (@napi-rs/keyring, native code) is required from node_modules itself.
  for (const file of probed.files) {
    const pkg = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file)?.[1];
    if (pkg && !files.includes(file)) contents.add(`node_modules/${pkg.replace('\\', '/')}`);
  }
  return { code: r.code, stdout: r.stdout, contents, builtins };
}

/**
 * Node modules `--version` and `--help` never need: they are answered before the parser
 * and the client load (src/main.ts).
 */
const UNUSED_BUILTINS = ['child_process', 'http2', 'tls', 'http', 'assert', 'perf_hooks', 'crypto', 'internal/fs/streams', 'internal/process/report'];

const HEAVY = [
  'node_modules/commander',
  'node_modules/undici',
  'node_modules/zod',
  'node_modules/conf',
  'node_modules/@inquirer',
  'node_modules/ora',
  'node_modules/jq-wasm',
  'node_modules/@napi-rs/keyring',
  'node_modules/string-width',
  'node_modules/chalk',
  'src/emulator',
];

/**
 * What of `contents` is `name`'s: the package (`node_modules/@inquirer` stands for every
 * package of the scope) or module, or a file inside it. The manifest names a file by its
 * path when node_modules is a link out of the checkout (`../../main/node_modules/chalk/…`).
 */
const of = (contents: Set<string>, name: string) => [...contents].filter((c) => `/${c}/`.includes(`/${name}/`));

describe('startup loads only what the run needs', () => {
  it.each([['--version'], ['--help'], ['tx', '--help'], ['revenue', 'export', '-h']])('offramp %s loads no parser, client, config store, prompts or emulator', async (...args) => {
    const r = await loaded(args);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(args[0] === '--version' ? /^offramp \d/ : /^Usage: offramp/);
    for (const heavy of HEAVY) expect(of(r.contents, heavy), heavy).toEqual([]);
    for (const builtin of UNUSED_BUILTINS) expect(r.builtins, builtin).not.toContain(builtin);
  });

  it.each([
    // Nothing listens on port 9 of loopback: the request fails fast (exit 7).
    ['refused', 7],
    // A whole answer from the emulator: undici's response path (parser, body, keep-alive).
    ['answered', 0],
  ] as const)('an API command (%s) with key and URL from the environment, --json, loads the client, not the config store, prompts or table renderer', async (how, code) => {
    const emu = how === 'answered' ? await emulatorFor() : undefined;
    let id = '0b6f6a3e-6b7e-4d8c-9b7a-1f2e3d4c5b6a';
    if (emu) {
      const created = await runCli(['tx', 'create', '--fiat-amount', '50000', '--token', 'usdt', '--network', 'bep20', '--ref', 'startup-1', '--json'], { env: emu.env });
      id = (JSON.parse(created.stdout) as { id: string }).id;
    }
    const r = await loaded(['tx', 'get', id, '--json', '--retries', '0'], {
      OFFRAMP_API_KEY: emu ? TEST_KEY : 'sk_test_startup',
      OFFRAMP_BASE_URL: emu ? emu.emulator.url : 'http://127.0.0.1:9/api/v1/partner',
    }).finally(() => emu?.close());
    expect(r.code).toBe(code);
    if (emu) expect(JSON.parse(r.stdout)).toMatchObject({ id });
    for (const needed of ['node_modules/commander', 'node_modules/undici', 'node_modules/zod']) expect(of(r.contents, needed), needed).not.toEqual([]);
    for (const heavy of ['node_modules/conf', 'node_modules/@inquirer', 'node_modules/ora', 'node_modules/string-width', 'node_modules/chalk', 'src/emulator']) {
      expect(of(r.contents, heavy), heavy).toEqual([]);
    }
    expect(r.builtins).toContain('net');
  });
});

describe('the chart library', () => {
  it('is loaded by `revenue report` alone, not by `revenue summary` or `revenue export`', { timeout: 60_000 }, async () => {
    const emu = await emulatorFor({ seedRevenue: 50 });
    try {
      const env = { OFFRAMP_API_KEY: TEST_KEY, OFFRAMP_BASE_URL: emu.emulator.url };
      const window = ['--from', new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10), '--to', new Date().toISOString().slice(0, 10)];
      const charts = ['node_modules/echarts', 'node_modules/zrender'];
      for (const args of [['revenue', 'summary', ...window, '--by', 'month'], ['revenue', 'export', ...window, '-o', 'ndjson']]) {
        const r = await loaded(args, env);
        expect(r.code, args.join(' ')).toBe(0);
        for (const chart of charts) expect([...r.contents].filter((c) => c.includes(chart)), `${args[1]}: ${chart}`).toEqual([]);
      }
      const r = await loaded(['revenue', 'report', ...window, '--out', join(probeDir, 'report.html')], env);
      expect(r.code).toBe(0);
      for (const chart of charts) expect([...r.contents].some((c) => c.includes(chart)), chart).toBe(true);
    } finally {
      await emu.close();
    }
  });
});

describe('on a Node.js too old for the build', () => {
  it('says which Node it needs instead of crashing', async () => {
    // Node before 20.16 has no process.getBuiltinModule; a preload takes it away.
    const old = join(probeDir, 'old-node.mjs');
    writeFileSync(old, 'delete process.getBuiltinModule;\n');
    const r = await runCli(['--version'], { env: { NODE_OPTIONS: `--import ${pathToFileURL(old).href}` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`offramp needs Node.js 20.19 or newer; this is ${process.version}\n`);
    expect(r.stdout).toBe('');
  });
});

describe('a command that never finishes', () => {
  it('exits 1 with a one-line error, not 0 as if it had succeeded', async () => {
    // A preload stands in for a bug: the command module's main() returns a promise that
    // never settles, and nothing keeps the event loop alive.
    const hang = join(probeDir, 'hang.cjs');
    writeFileSync(
      hang,
      `const Module = require('node:module'); const load = Module._load;
Module._load = function (request, ...rest) { const m = load.call(this, request, ...rest); return /[\\/]chunks[\\/]cli-\\w+\\.js$/.test(request) ? { ...m, main: () => new Promise(() => {}) } : m; };\n`,
    );
    const r = await runCli(['profile', 'list'], { env: { NODE_OPTIONS: `--require ${hang}` } });
    expect(r.stderr).toBe('error: INTERNAL: the command stopped before it finished (a bug: please report it)\n');
    expect(r.code).toBe(1);
  });
});

