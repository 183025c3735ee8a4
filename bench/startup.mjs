// bench/startup: median wall time of `offramp --version`, `--help` and `tx get ID --json`
// (against the emulator) next to bare `node -e 0`, runs interleaved so machine noise
// hits every command alike; `gh --version` too where GitHub CLI is installed.
// Targets (issue 2): --version/--help <= 1.5x bare node and no slower than gh; tx get <= 3x.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';

const BIN = new URL('../bin/offramp.js', import.meta.url).pathname;
const RUNS = Number(process.env.BENCH_RUNS ?? 25);

export async function main() {
  const { startEmulator } = await import('../dist/emulator.js');
  const key = 'sk_test_bench_startup';
  const emu = await startEmulator({ port: 0, apiKeys: [key] });
  try {
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const res = await fetch(`${emu.url}/transactions`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ fiat_amount: '50000', crypto_currency: 'usdt', network: 'bep20', merchant_reference: `bench-${randomUUID()}` }),
    });
    const id = (await res.json()).data.id;
    const env = { ...process.env, OFFRAMP_API_KEY: key, OFFRAMP_BASE_URL: emu.url, NO_COLOR: '1' };
    // An extra CA bundle is read at every node start (~100 ms here), which would hide
    // what the CLI itself costs; no command measured here opens a TLS connection.
    delete env.NODE_EXTRA_CA_CERTS;

    const cases = [
      { name: 'node -e 0', cmd: process.execPath, args: ['-e', '0'] },
      { name: 'offramp --version', cmd: process.execPath, args: [BIN, '--version'] },
      { name: 'offramp --help', cmd: process.execPath, args: [BIN, '--help'] },
      { name: 'offramp tx get ID --json', cmd: process.execPath, args: [BIN, 'tx', 'get', id, '--json'] },
      // What a first run after an install or upgrade costs, before a compile cache exists
      // (Node's own, on 22.1+; Node 20 has none): for information, no target.
      { name: 'tx get, compile cache off', cmd: process.execPath, args: [BIN, 'tx', 'get', id, '--json'], env: { NODE_DISABLE_COMPILE_CACHE: '1' } },
    ];
    if (spawnSync('sh', ['-c', 'command -v gh']).status === 0) cases.push({ name: 'gh --version', cmd: 'gh', args: ['--version'] });

    // Async spawns: the emulator answering `tx get` runs in this process's event loop.
    const timeRun = (c) =>
      new Promise((resolve, reject) => {
        const start = process.hrtime.bigint();
        const child = spawn(c.cmd, c.args, { env: { ...env, ...c.env }, stdio: 'ignore' });
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - start) / 1e6) : reject(new Error(`${c.name} exited ${code}`))));
      });
    const times = new Map(cases.map((c) => [c.name, []]));
    for (const c of cases) await timeRun(c); // warm the file cache
    for (let i = 0; i < RUNS; i++) {
      for (const c of cases) times.get(c.name).push(await timeRun(c));
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const base = median(times.get('node -e 0'));
    const gh = times.has('gh --version') ? median(times.get('gh --version')) : undefined;
    const targets = { 'offramp --version': 1.5, 'offramp --help': 1.5, 'offramp tx get ID --json': 3 };
    console.log(`startup, median of ${RUNS} interleaved runs (node ${process.versions.node})`);
    console.log('command'.padEnd(28), 'median ms'.padStart(10), 'x node'.padStart(8), 'target'.padStart(8));
    for (const c of cases) {
      const m = median(times.get(c.name));
      const target = targets[c.name] ? `<= ${targets[c.name]}x` : '';
      const vsGh = gh && targets[c.name] === 1.5 ? (m <= gh ? '  (<= gh)' : '  (slower than gh)') : '';
      console.log(c.name.padEnd(28), m.toFixed(1).padStart(10), (m / base).toFixed(2).padStart(8), target.padStart(8) + vsGh);
    }
  } finally {
    await emu.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
