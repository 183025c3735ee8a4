// The linux-x64 standalone executable on a machine with no Node.js: each run goes through a
// mount namespace of its own (unshare, as root) where every `node` executable on the
// machine (found by a search of the whole filesystem, the test's own runtime included) is
// covered by an empty, non-executable file, and the run first checks that no `node` is
// left to find. There it answers --version, runs the demo, runs the emulator that smoke
// walks, and exports revenue to XLSX. Apart from that, it takes no Node flags from outside.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINARY_X64, VERSION, run, start, tempHome, type Started } from './helpers.js';

const why =
  process.platform !== 'linux' || process.arch !== 'x64'
    ? `the executable is linux-x64 and this is ${process.platform}-${process.arch}`
    : process.getuid?.() !== 0
      ? 'hiding node needs root (unshare --mount)'
      : spawnSync('unshare', ['--mount', 'true']).status !== 0
        ? 'unshare --mount is not available here'
        : undefined;

/** Every executable file named like Node.js on the machine, the running one included. */
function nodesOnMachine(): string[] {
  // find exits 1 when some directory cannot be read; what it printed still stands.
  const found = spawnSync(
    'find',
    ['/', '(', '-path', '/proc', '-o', '-path', '/sys', '-o', '-path', '/dev', '-o', '-path', '/run', ')', '-prune', '-o', '(', '-name', 'node', '-o', '-name', 'nodejs', '-o', '-name', 'node[0-9]*', ')', '-type', 'f', '-perm', '/111', '-print'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 24 },
  ).stdout;
  return [...new Set([...found.split('\n').filter(Boolean), realpathSync(process.execPath)])];
}

// Run by sh inside the namespace: cover each node, check none is left, then run the command.
const HIDE_NODE = `
empty=$1; shift
while [ "$1" != "--" ]; do mount --bind "$empty" "$1" || exit 97; [ -s "$1" ] && exit 98; shift; done; shift
if command -v node >/dev/null 2>&1 || command -v nodejs >/dev/null 2>&1; then echo "a node is still on PATH" >&2; exit 99; fi
exec "$@"`;

let nodes: string[] = [];
let empty = '';
/** The argv that runs `args` of the executable where no node exists. */
const withoutNode = (args: string[]) => ['--mount', '--propagation', 'private', '--', 'sh', '-c', HIDE_NODE, 'sh', empty, ...nodes, '--', BINARY_X64, ...args];

describe.skipIf(why)(`the linux-x64 executable where no node exists${why ? ` (skipped: ${why})` : ''}`, () => {
  beforeAll(() => {
    nodes = nodesOnMachine();
    empty = join(tmpdir(), 'not-node');
    writeFileSync(empty, '', { mode: 0o644 });
  });

  it('finds the node it hides, and nothing named node runs inside', async () => {
    expect(nodes).toContain(realpathSync(process.execPath));
    const r = await run('unshare', ['--mount', '--propagation', 'private', '--', 'sh', '-c', HIDE_NODE, 'sh', empty, ...nodes, '--', 'sh', '-c', `"$0" -e 0; echo "exit $?"`, realpathSync(process.execPath)]);
    expect(r.stdout).not.toBe('exit 0\n');
    expect(r.stdout).toMatch(/^exit (126|127)\n$/);
  });

  it('--version says it is the standalone build, with its Node.js inside', async () => {
    const r = await run('unshare', withoutNode(['--version']), { env: tempHome().env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`offramp ${VERSION} (standalone, Node.js v26.12.1)\nAPI /api/v1 (interface 1.0.0)\n`);
  });

  it('--help and a completion script come from inside the executable', async () => {
    const home = tempHome();
    const help = await run('unshare', withoutNode(['tx', '--help']), { env: home.env });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: offramp tx /);
    const completion = await run('unshare', withoutNode(['completion', 'bash']), { env: home.env });
    expect(completion.code).toBe(0);
    expect(completion.stdout).toContain('complete -F _offramp offramp');
  });

  it('demo runs a transaction end to end', async () => {
    const r = await run('unshare', withoutNode(['demo']), { env: tempHome().env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('done: 5 webhooks received, each signature verified');
    expect(r.stdout).toMatch(/partner share +125\.00 NGN/);
  });

  describe('against the emulator it runs', () => {
    const key = 'sk_test_standalone_1';
    let emulator: Started;
    beforeAll(async () => {
      emulator = await start('unshare', withoutNode(['emulator', '--port', '0', '--seed-revenue', '120', '--api-key', key]), { env: tempHome().env });
    });
    afterAll(async () => {
      expect(await emulator?.stop()).toBe(143);
    });

    it('smoke passes every check', async () => {
      const r = await run('unshare', withoutNode(['smoke']), { env: { ...tempHome().env, OFFRAMP_BASE_URL: emulator.firstLine, OFFRAMP_API_KEY: key } });
      expect(r.stderr).not.toMatch(/error/i);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/\d+ checks: \d+ passed, 0 failed/);
    });

    it('revenue export -o xlsx --out x.xlsx writes every row, totals checked with the service', async () => {
      const home = tempHome();
      const day = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10);
      const r = await run('unshare', withoutNode(['revenue', 'export', '--from', day(179), '--to', day(0), '-o', 'xlsx', '--out', 'x.xlsx', '--summary']), {
        env: { ...home.env, OFFRAMP_BASE_URL: emulator.firstLine, OFFRAMP_API_KEY: key },
        cwd: home.dir,
      });
      expect(r.code).toBe(0);
      // The seeded rows and the one the smoke walk above completed: the service's own count.
      const rows = Number(/Exported (\d+) rows .* to x\.xlsx .*totals match the service/.exec(r.stderr)?.[1]);
      expect(rows).toBeGreaterThanOrEqual(120);
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(join(home.dir, 'x.xlsx'));
      // The header, then one row per ledger row.
      expect(book.getWorksheet('revenue')!.actualRowCount).toBe(rows + 1);
    });
  });
});

/** A loopback port nothing listens on (taken, then let go). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something accepts a connection on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const linuxX64 = process.platform === 'linux' && process.arch === 'x64';

describe.skipIf(!linuxX64)('the linux-x64 executable takes no Node flags from outside, as gh has none', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'offramp-node-flags-'));
  /** A file that, if Node ever loads it, leaves `marker` behind. */
  const injected = (where: string) => {
    const marker = join(where, 'marker');
    const file = join(where, 'inject.cjs');
    writeFileSync(file, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'injected code ran');\n`);
    return { file, marker };
  };

  it('NODE_OPTIONS=--require runs nothing, and --node-options on its command line is an unknown option', async () => {
    const { file, marker } = injected(dir());
    const r = await run(BINARY_X64, ['--version'], { env: { ...tempHome().env, NODE_OPTIONS: `--require ${file}` } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const cli = await run(BINARY_X64, [`--node-options=--require ${file}`, 'demo'], { env: tempHome().env });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain("unknown option '--node-options=--require");
    expect(existsSync(marker)).toBe(false);
  });

  it('NODE_OPTIONS=--inspect opens no debugger, and neither does SIGUSR1', async () => {
    const { file, marker } = injected(dir());
    const port = await freePort();
    const emulator = await start(BINARY_X64, ['emulator', '--port', '0'], { env: { ...tempHome().env, NODE_OPTIONS: `--inspect=127.0.0.1:${port} --require ${file}` } });
    try {
      expect(await listening(port)).toBe(false);
      emulator.child.kill('SIGUSR1');
      // Still serving after the signal (the request is answered after it was delivered).
      const health = await fetch(`${new URL(emulator.firstLine).origin}/__emulator/health`);
      expect(health.status).toBe(200);
      expect(emulator.stderr()).not.toContain('Debugger listening');
      expect(await listening(9229)).toBe(false);
      expect(existsSync(marker)).toBe(false);
    } finally {
      expect(await emulator.stop()).toBe(143);
    }
  });
});
