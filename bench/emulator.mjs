#!/usr/bin/env node
// Benchmark of the emulator: requests per second for GET /transactions/{id} and for
// POST /transactions (each request a new transaction: unique merchant_reference and
// Idempotency-Key), next to a bare node:http hello world measured in the same run; then
// the same two cases again with a state file (`--state`, docs/emulator.md "State file"),
// so the cost of journaling every change reads straight off the table. Last, what one fold
// of the journal into the snapshot costs once the state holds 1,000 and 10,000
// transactions: how long it takes, and the longest the event loop was blocked meanwhile.
// (bench/journal.mjs measures --state under an open-loop load, and restarts.)
//
// How: the emulator runs as compiled JavaScript in a child process: dist/emulator.js when
// `npm run build` produced it from the current sources, else an esbuild bundle of
// src/emulator written to .bench/emulator.mjs (the same compiler the build uses). The
// hello world runs in a child process too. autocannon
// drives them from this process over keep-alive connections on 127.0.0.1, so the load
// generator and the server never share a process. Each case gets a 2 s warm-up, then a
// timed run (default 4 s); the whole bench stops itself within about a minute even if a
// server hangs.
//
//   node bench/emulator.mjs [--duration S] [--connections N] [--json] [--no-snapshot]
//
// Targets (issue 3): >= 5,000 reads/s and >= 2,000 creates/s on a 2-core machine; with a
// state file (issue 14), creates at >= 0.7x the in-memory figure of the same run.
import { spawn } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, '.bench');
const KEY = 'sk_bench_partner';
const TARGETS = { read: 5000, create: 2000, stateCreateRatio: 0.7 };

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? Number(args[at + 1]) : fallback;
};
const DURATION_S = option('--duration', 4);
const CONNECTIONS = option('--connections', 10);
const JSON_OUT = args.includes('--json');
const SNAPSHOT_SIZES = args.includes('--no-snapshot') ? [] : [1000, 10000];
// Two seconds: a create is three times cheaper once the JIT has seen a few thousand of them.
const WARMUP_S = 2;

// A hard stop: the bench must never outlive its budget, whatever happens.
const budgetMs = (5 * (WARMUP_S + DURATION_S) + 50 + 40 * SNAPSHOT_SIZES.length) * 1000;
const watchdog = setTimeout(() => {
  console.error(`bench: still running after ${budgetMs / 1000} s; giving up`);
  process.exit(1);
}, budgetMs);
watchdog.unref();

const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * The emulator as compiled JavaScript: dist/emulator.js from `npm run build` when it is
 * newer than every source file of the emulator, else a fresh esbuild bundle in .bench/.
 */
async function compileEmulator() {
  const built = join(ROOT, 'dist/emulator.js');
  if (existsSync(built)) {
    const sources = [join(ROOT, 'src/emulator'), join(ROOT, 'src/lib')].flatMap((dir) =>
      readdirSync(dir, { recursive: true }).map((f) => join(dir, String(f))),
    );
    const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs));
    if (statSync(built).mtimeMs >= newest) return { file: built, how: 'dist/emulator.js (npm run build)' };
  }
  mkdirSync(OUT_DIR, { recursive: true });
  const outfile = join(OUT_DIR, 'emulator.mjs');
  await build({
    entryPoints: [join(ROOT, 'src/emulator/index.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  return { file: outfile, how: '.bench/emulator.mjs (esbuild bundle of src/emulator; dist/ absent or stale)' };
}

// Every server child answers an IPC 'cpu' message with its CPU time so far: CPU time per
// request is a figure that other load on the machine barely moves, unlike requests/s.
const CPU_PROBE = `process.on('message', () => { const u = process.cpuUsage(); process.send(u.user + u.system); });`;

/** Starts `script` in a child node process; resolves with the first line it prints (its URL). */
function startChild(script) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', `${CPU_PROBE}\n${script}`], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    children.add(child);
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ url: line.trim(), stop: () => stopChild(child), cpu: () => cpuOf(child) });
    });
    child.on('exit', (code) => reject(new Error(`server process exited early (code ${code})`)));
  });
}

/** The child's CPU time (user + system) in microseconds. */
function cpuOf(child) {
  return new Promise((resolve) => {
    child.once('message', (us) => resolve(Number(us)));
    child.send('cpu');
  });
}

function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => {
      children.delete(child);
      resolve();
    });
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  });
}

const helloScript = `
  import { createServer } from 'node:http';
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 11 });
    res.end('hello world');
  });
  server.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + server.address().port + '/'));
  process.on('SIGTERM', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
`;

const emulatorScript = (file, statePath) => `
  const { startEmulator } = await import(${JSON.stringify(file)});
  // No rate limit (it would cap the figure) and no logging; everything else as shipped.
  const emulator = await startEmulator({ port: 0, apiKeys: [${JSON.stringify(KEY)}], rateLimit: 0${statePath ? `, statePath: ${JSON.stringify(statePath)}` : ''} });
  console.log(emulator.url);
  process.on('SIGTERM', async () => { await emulator.close(); process.exit(0); });
`;

// N creates, then five folds of the journal into the snapshot, each after one change (a clock
// move): the time from the change until the fold is done, and the longest gap between two turns
// of the event loop meanwhile (what a request arriving then would have waited).
const snapshotScript = (file, statePath, n) => `
  const { startEmulator } = await import(${JSON.stringify(file)});
  const { statSync } = await import('node:fs');
  const emulator = await startEmulator({ port: 0, apiKeys: [${JSON.stringify(KEY)}], rateLimit: 0, statePath: ${JSON.stringify(statePath)} });
  const headers = { 'x-api-key': ${JSON.stringify(KEY)}, 'content-type': 'application/json' };
  let made = 0;
  const create = async () => {
    while (made < ${n}) {
      const ref = 'snap-' + made++;
      const res = await fetch(emulator.url + '/transactions', { method: 'POST', headers: { ...headers, 'idempotency-key': ref },
        body: JSON.stringify({ fiat_amount: '150000.00', crypto_currency: 'usdt', network: 'bep20', merchant_reference: ref }) });
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 10 }, create));
  await emulator.flush();
  const rounds = [];
  for (let i = 0; i < 5; i++) {
    emulator.advanceClock(1);
    let last = performance.now(), stall = 0, done = false;
    const tick = () => { const now = performance.now(); stall = Math.max(stall, now - last); last = now; if (!done) setImmediate(tick); };
    setImmediate(tick);
    const start = performance.now();
    await emulator.flush();
    done = true;
    rounds.push({ ms: performance.now() - start, stallMs: stall });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  console.log(JSON.stringify({ transactions: ${n}, bytes: statSync(${JSON.stringify(statePath)}).size, rounds }));
  await emulator.close();
`;

/** One state-file write at `n` transactions, in a child process of its own: medians of five. */
async function snapshotCost(file, dir, n) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', snapshotScript(file, join(dir, `snapshot-${n}.state`), n)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const [code] = await once(child, 'exit');
  children.delete(child);
  if (code !== 0) throw new Error(`snapshot measure at ${n} transactions exited ${code}`);
  const { transactions, bytes, rounds } = JSON.parse(out);
  const median = (key) => rounds.map((r) => r[key]).sort((a, b) => a - b)[2];
  return { transactions, mib: bytes / 1024 / 1024, ms: median('ms'), stallMs: median('stallMs') };
}

function cannon(opts) {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ connections: CONNECTIONS, pipelining: 1, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false, outputStream: { write() {} } });
  });
}

async function measure(name, server, opts) {
  await cannon({ ...opts, duration: WARMUP_S });
  const cpuBefore = await server.cpu();
  const r = await cannon({ ...opts, duration: DURATION_S });
  const cpuUs = (await server.cpu()) - cpuBefore;
  return {
    case: name,
    rps: Math.round(r.requests.average),
    cpuUsPerReq: Math.round(cpuUs / Math.max(1, r.requests.total)),
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

/** An emulator child with one transaction to read, and the two cases against it; `label` tells them apart. */
async function emulatorCases(file, label, statePath) {
  const emu = await startChild(emulatorScript(file, statePath));
  const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
  const seed = await fetch(`${emu.url}/transactions`, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': 'bench-seed' },
    body: JSON.stringify({ fiat_amount: '150000.00', crypto_currency: 'usdt', network: 'bep20', merchant_reference: 'bench-seed' }),
  });
  if (seed.status !== 201) throw new Error(`could not create the transaction to read: HTTP ${seed.status}`);
  const { data } = await seed.json();
  const base = new URL(emu.url);
  let n = 0;
  const run = `${process.pid}-${Date.now()}-${label.trim()}`;
  return {
    stop: () => emu.stop(),
    read: () => measure(`GET /transactions/{id}${label}`, emu, { url: `${base.origin}${base.pathname}/transactions/${data.id}`, headers }),
    create: () =>
      measure(`POST /transactions (create)${label}`, emu, {
        url: base.origin,
        requests: [
          {
            method: 'POST',
            path: `${base.pathname}/transactions`,
            setupRequest(req) {
              n++;
              const ref = `bench-${run}-${n}`;
              return {
                ...req,
                headers: { ...headers, 'idempotency-key': ref },
                body: JSON.stringify({ fiat_amount: '150000.00', crypto_currency: 'usdt', network: 'bep20', merchant_reference: ref }),
              };
            },
          },
        ],
      }),
  };
}

async function main() {
  const { file, how } = await compileEmulator();
  const results = [];

  const hello = await startChild(helloScript);
  results.push(await measure('node:http hello world', hello, { url: hello.url }));
  await hello.stop();

  // Both emulators up at once, their cases interleaved (in-memory, then --state, for reads
  // and again for creates): load from elsewhere on the machine then weighs on both alike.
  const stateDir = mkdtempSync(join(tmpdir(), 'offramp-bench-state-'));
  const statePath = join(stateDir, 'bench.state');
  let stateBytes = 0;
  let read, create, stateRead, stateCreate;
  const snapshots = [];
  try {
    const memory = await emulatorCases(file, '');
    const stateful = await emulatorCases(file, ' --state', statePath);
    read = await memory.read();
    stateRead = await stateful.read();
    create = await memory.create();
    stateCreate = await stateful.create();
    await memory.stop();
    await stateful.stop();
    stateBytes = statSync(statePath).size;
    for (const n of SNAPSHOT_SIZES) snapshots.push(await snapshotCost(file, stateDir, n));
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
  results.push(read, create, stateRead, stateCreate);

  if (JSON_OUT) {
    console.log(JSON.stringify({ emulator: how, connections: CONNECTIONS, durationS: DURATION_S, stateFileBytes: stateBytes, results, snapshots }, null, 2));
  } else {
    console.log(`emulator from ${how}`);
    print(results);
  }
  const helloRow = results[0];
  const clean = (r) => r.non2xx + r.errors === 0;
  const ratio = stateCreate.rps / Math.max(1, create.rps);
  const ok =
    read.rps >= TARGETS.read &&
    create.rps >= TARGETS.create &&
    ratio >= TARGETS.stateCreateRatio &&
    [read, create, stateRead, stateCreate].every(clean);
  if (!JSON_OUT) {
    console.log(
      `\nreads ${read.rps}/s (target ${TARGETS.read}, ${pct(read.rps, helloRow.rps)} of hello world), ` +
        `creates ${create.rps}/s (target ${TARGETS.create}, ${pct(create.rps, helloRow.rps)}); ` +
        `with --state: reads ${stateRead.rps}/s, creates ${stateCreate.rps}/s = ${ratio.toFixed(2)}x in-memory (target ${TARGETS.stateCreateRatio}x; ` +
        `by server CPU per create ${(create.cpuUsPerReq / Math.max(1, stateCreate.cpuUsPerReq)).toFixed(2)}x; ` +
        `state file ${(stateBytes / 1024 / 1024).toFixed(1)} MiB after the run): ${ok ? 'targets met' : 'TARGETS MISSED'}`,
    );
    for (const s of snapshots) {
      console.log(
        `fold into the snapshot at ${s.transactions} transactions (${s.mib.toFixed(1)} MiB): ${s.ms.toFixed(0)} ms from the change, ` +
          `event loop blocked at most ${s.stallMs.toFixed(0)} ms (medians of 5)`,
      );
    }
    const load = loadavg()[0];
    if (load > cpus().length) {
      console.log(`note: load average ${load.toFixed(1)} on ${cpus().length} CPUs while measuring; requests/s are depressed, CPU µs/req much less so`);
    }
  }
  process.exitCode = ok ? 0 : 1;
}

function pct(a, b) {
  return `${Math.round((100 * a) / b)}%`;
}

function print(rows) {
  const cols = [
    ['case', (r) => r.case, 'left'],
    ['req/s', (r) => String(r.rps)],
    ['server CPU µs/req', (r) => String(r.cpuUsPerReq)],
    ['p50 ms', (r) => String(r.p50)],
    ['p99 ms', (r) => String(r.p99)],
    ['requests', (r) => String(r.total)],
    ['non-2xx', (r) => String(r.non2xx)],
    ['errors', (r) => String(r.errors)],
  ];
  const cells = [cols.map(([h]) => h), ...rows.map((r) => cols.map(([, f]) => f(r)))];
  const widths = cols.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  console.log(`emulator bench: ${CONNECTIONS} keep-alive connections, ${DURATION_S} s per case after ${WARMUP_S} s warm-up, node ${process.version}`);
  for (const [i, row] of cells.entries()) {
    console.log(row.map((c, k) => (cols[k][2] === 'left' ? c.padEnd(widths[k]) : c.padStart(widths[k]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

main()
  .catch((err) => {
    console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await Promise.all([...children].map((c) => stopChild(c)));
    clearTimeout(watchdog);
  });
