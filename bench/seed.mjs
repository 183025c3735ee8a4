#!/usr/bin/env node
// bench/seed: the seeded ledger (`--seed-revenue N`) built two ways, each in a child process
// of its own: as the emulator keeps it (columns of typed arrays, money in integer kobo:
// src/emulator/revenue-seed.ts), and the plain way (one row object per row, priced by the
// code a live completion uses: fees() and tokensFor(), then kept as the ledger keeps live
// rows). For each: the time to build the rows, the memory they hold, their share of a state
// file, and the time to add up the partner share of every row (what a window's summary
// does). Both draw the same amounts from the same seed, so the two totals must agree.
// The plain way is the one to use unless it is more than 2x slower or larger
// (BENCHMARKS.md, "One source per fact").
//
//   node bench/seed.mjs [--rows N] [--runs N] [--json]
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LIB = join(ROOT, '.bench', 'seed-lib.mjs');
const { values: flags } = parseArgs({ options: { rows: { type: 'string', default: '100000' }, runs: { type: 'string', default: '3' }, json: { type: 'boolean', default: false } } });
const ROWS = Number(flags.rows);
const RUNS = Number(flags.runs);
const JSON_OUT = flags.json;
const LIMIT = 2;

/** The emulator's own seeding and pricing code, compiled from src/ as the build compiles it. */
async function bundle() {
  mkdirSync(dirname(LIB), { recursive: true });
  await build({
    stdin: {
      contents: [
        "export { SeededRows } from './src/emulator/revenue-seed.ts';",
        "export { fees } from './src/emulator/revenue.ts';",
        "export { formatFiat, formatToken, pairsFor, ratesFrom, tokensFor } from './src/emulator/pricing.ts';",
        "export { seededRandom } from './src/emulator/prng.ts';",
        "export { Decimal } from './src/lib/money.ts';",
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'ts',
    },
    outfile: LIB, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'error',
  });
}

// One measurement, in a fresh process (its own heap): prints one JSON line.
const CHILD = `
const lib = await import(process.env.SEED_LIB);
const way = process.env.SEED_WAY;
const n = Number(process.env.SEED_ROWS);
const { randomUUID } = await import('node:crypto');
const NOW = Date.parse('2026-11-27T00:00:00.000Z');
const SPAN = 180 * 86_400_000;
const MIN_KOBO = 500_000;
const KOBO_RANGE = 199_500_000;
const pairs = lib.pairsFor('production');
const rates = lib.ratesFrom('1550.00');
// CPU time, not wall time: other load on the machine barely moves it.
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const held = () => { globalThis.gc(); globalThis.gc(); const m = process.memoryUsage(); return m.heapUsed + m.external; };

/** The plain way: the same draws as SeededRows.generate, each row priced as a completion is. */
function plainRows(random) {
  const ts = [];
  for (let i = 0; i < n; i++) ts.push(NOW - Math.floor(random() * SPAN));
  ts.sort((a, b) => a - b);
  for (let i = n - 2; i >= 0; i--) if (ts[i] >= ts[i + 1]) ts[i] = ts[i + 1] - 1;
  const entries = [];
  for (let i = 0; i < n; i++) {
    const amount = new lib.Decimal(MIN_KOBO + Math.floor(random() * KOBO_RANGE)).times('0.01');
    const pair = pairs[Math.floor(random() * pairs.length)];
    const { platform_fee, share } = lib.fees(amount);
    entries.push({
      tsMs: ts[i],
      row: {
        transaction_id: randomUUID(),
        merchant_id: 'merchant-seed',
        merchant_reference: 'seed-' + String(i + 1).padStart(6, '0'),
        terminal_id: 'terminal-' + ((i % 8) + 1),
        crypto_currency: pair.token,
        network: pair.network,
        crypto_amount: lib.formatToken(lib.tokensFor(amount, rates.adjusted, pair.token)),
        amount: lib.formatFiat(amount),
        platform_fee: lib.formatFiat(platform_fee),
        share: lib.formatFiat(share),
        ts: new Date(ts[i]).toISOString(),
      },
    });
  }
  return entries;
}

const before = held();
let t = cpu();
const rows = way === 'columns' ? lib.SeededRows.generate(n, NOW, lib.seededRandom(1), pairs, rates) : plainRows(lib.seededRandom(1));
const buildMs = cpu() - t;
const bytes = held() - before;

t = cpu();
const state = way === 'columns'
  ? '{"k":"seed","p":0,"v":' + JSON.stringify(rows.toState()) + '}\\n'
  : rows.map((e) => '{"k":"row","p":0,"v":' + JSON.stringify(e.row) + '}\\n').join('');
const encodeMs = cpu() - t;

t = cpu();
let total;
if (way === 'columns') {
  let kobo = 0;
  for (let i = 0; i < rows.length; i++) kobo += rows.shareKoboAt(i);
  total = new lib.Decimal(kobo).times('0.01');
} else {
  total = new lib.Decimal(0);
  for (const e of rows) total = total.plus(e.row.share);
}
const sumMs = cpu() - t;
console.log(JSON.stringify({ way, buildMs, bytes, stateBytes: Buffer.byteLength(state), encodeMs, sumMs, total: total.toFixed(2) }));
`;

function measure(way) {
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', CHILD], {
    cwd: ROOT,
    env: { ...process.env, SEED_LIB: LIB, SEED_WAY: way, SEED_ROWS: String(ROWS) },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`the ${way} run failed: ${r.stderr || r.error?.message}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

await bundle();
const runs = { columns: [], plain: [] };
// Alternated, so machine noise hits both ways alike.
for (let i = 0; i < RUNS; i++) for (const way of ['columns', 'plain']) runs[way].push(measure(way));
const figures = ['buildMs', 'bytes', 'stateBytes', 'encodeMs', 'sumMs'];
const result = {};
for (const way of ['columns', 'plain']) result[way] = Object.fromEntries(figures.map((f) => [f, median(runs[way].map((r) => r[f]))]));
const totals = new Set([...runs.columns, ...runs.plain].map((r) => r.total));
if (totals.size !== 1) throw new Error(`the two ways disagree on the total share: ${[...totals].join(' vs ')}`);
const ratio = Object.fromEntries(figures.map((f) => [f, result.plain[f] / result.columns[f]]));
const plainWins = ratio.buildMs <= LIMIT && ratio.bytes <= LIMIT && ratio.stateBytes <= LIMIT;

if (JSON_OUT) {
  console.log(JSON.stringify({ rows: ROWS, runs: RUNS, node: process.version, result, ratio, total: [...totals][0], plainWins }, null, 2));
} else {
  const fmt = { buildMs: (v) => `${v.toFixed(0)} ms`, bytes: (v) => `${(v / 1e6).toFixed(1)} MB`, stateBytes: (v) => `${(v / 1e6).toFixed(1)} MB`, encodeMs: (v) => `${v.toFixed(0)} ms`, sumMs: (v) => `${v.toFixed(1)} ms` };
  const label = { buildMs: 'build the rows (CPU)', bytes: 'memory they hold', stateBytes: 'their state-file record', encodeMs: 'encode that record (CPU)', sumMs: 'sum every share (CPU)' };
  console.log(`seeded ledger, ${ROWS.toLocaleString('en')} rows, median of ${RUNS} runs each (node ${process.version}); total share ${[...totals][0]} both ways`);
  console.log(`${'figure'.padEnd(26)}${'columns'.padStart(12)}${'plain'.padStart(12)}${'plain/columns'.padStart(15)}`);
  for (const f of figures) console.log(`${label[f].padEnd(26)}${fmt[f](result.columns[f]).padStart(12)}${fmt[f](result.plain[f]).padStart(12)}${`${ratio[f].toFixed(1)}x`.padStart(15)}`);
  console.log(plainWins ? `the plain way is within ${LIMIT}x: use it` : `the plain way is more than ${LIMIT}x slower or larger: keep the columns`);
}
