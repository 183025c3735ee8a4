// bench/export: `offramp revenue export -o csv --out FILE` over 100,000 seeded ledger rows
// (the last 180 days) against the emulator at 20 ms latency: wall time and peak RSS at
// --concurrency 1 and 4, and peak RSS at 10,000 vs 100,000 rows.
// Targets (issue 6): concurrency 4 at least 3x faster than 1; peak RSS at 100,000 rows
// within 1.2x of the 10,000-row figure.
//
// The emulator runs in this process (dist/emulator.js), the CLI as a child process (the
// built binary), so the two do not share a thread. Peak RSS is the child's own
// process.resourceUsage().maxRSS, written at exit by a preloaded probe. Every run has a
// deadline; the whole bench stops itself.
//
//   node bench/export.mjs [--rows N] [--latency MS] [--json]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/offramp.js');
const KEY = 'sk_test_bench_export';
const DAY = 86_400_000;
const RUN_DEADLINE_MS = 120_000;
const TARGETS = { speedup: 3, rssRatio: 1.2 };

function option(args, name, fallback) {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? Number(args[at + 1]) : fallback;
}

/** One export in a child process: seconds, peak RSS (MB), rows written. */
async function exportOnce({ url, concurrency, dir, label }) {
  const out = join(dir, `${label}.csv`);
  const rssFile = join(dir, `${label}.rss`);
  const probe = join(dir, 'rss-probe.mjs');
  writeFileSync(
    probe,
    `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  const now = Date.now();
  const args = [
    '--import', pathToFileURL(probe).href, BIN,
    'revenue', 'export',
    '--from', new Date(now - 181 * DAY).toISOString(), '--to', new Date(now + 60_000).toISOString(),
    '-o', 'csv', '--out', out, '--concurrency', String(concurrency),
  ];
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: url, OFFRAMP_CONFIG_DIR: join(dir, 'config'), CI: 'true', NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const deadline = setTimeout(() => child.kill('SIGKILL'), RUN_DEADLINE_MS);
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(deadline);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`export (${label}) exited ${code}: ${stderr.trim()}`);
  const text = readFileSync(out, 'utf8');
  let lines = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  const bytes = statSync(out).size;
  rmSync(out);
  return { label, concurrency, seconds, rssMb: Number(readFileSync(rssFile, 'utf8')) / 1024, rows: lines - 1, bytes };
}

export async function main(argv = process.argv.slice(2)) {
  const rows = option(argv, '--rows', 100_000);
  const small = Math.round(rows / 10);
  const latencyMs = option(argv, '--latency', 20);
  const asJson = argv.includes('--json');
  const { startEmulator } = await import(pathToFileURL(join(ROOT, 'dist/emulator.js')).href).catch(() => {
    throw new Error('dist/emulator.js is missing: run `npm run build` first');
  });
  const dir = mkdtempSync(join(tmpdir(), 'offramp-bench-export-'));
  const results = [];
  try {
    for (const [count, runs] of [
      [rows, [1, 4]],
      [small, [4]],
    ]) {
      const emu = await startEmulator({ port: 0, apiKeys: [KEY], seedRevenue: count, seed: 1, latencyMs, rateLimit: 0 });
      try {
        for (const concurrency of runs) {
          const r = await exportOnce({ url: emu.url, concurrency, dir, label: `${count}-c${concurrency}` });
          if (r.rows !== count) throw new Error(`expected ${count} rows, the file has ${r.rows}`);
          results.push({ ...r, seeded: count });
        }
      } finally {
        await emu.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const [big1, big4, small4] = results;
  const speedup = big1.seconds / big4.seconds;
  const rssRatio = big4.rssMb / small4.rssMb;
  const verdict = {
    speedup: { value: speedup, target: TARGETS.speedup, pass: speedup >= TARGETS.speedup },
    rssRatio: { value: rssRatio, target: TARGETS.rssRatio, pass: rssRatio <= TARGETS.rssRatio },
  };
  if (asJson) {
    console.log(JSON.stringify({ latencyMs, results, verdict }, null, 2));
  } else {
    console.log(`revenue export -o csv --out FILE, emulator latency ${latencyMs} ms (child process; peak RSS = its maxRSS)`);
    console.log('rows      concurrency  seconds  rows/s   file MB  peak RSS MB');
    for (const r of results) {
      console.log(
        `${String(r.rows).padEnd(9)} ${String(r.concurrency).padEnd(12)} ${r.seconds.toFixed(2).padStart(7)}  ${String(Math.round(r.rows / r.seconds)).padStart(7)}  ${(r.bytes / 1e6).toFixed(1).padStart(7)}  ${r.rssMb.toFixed(1).padStart(11)}`,
      );
    }
    console.log(`speed-up c4 vs c1 at ${rows} rows: ${speedup.toFixed(2)}x (target >= ${TARGETS.speedup}x) ${verdict.speedup.pass ? 'PASS' : 'FAIL'}`);
    console.log(`peak RSS ${rows} vs ${small} rows: ${rssRatio.toFixed(2)}x (target <= ${TARGETS.rssRatio}x) ${verdict.rssRatio.pass ? 'PASS' : 'FAIL'}`);
  }
  return { results, verdict };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const watchdog = setTimeout(() => {
    console.error('bench/export: over its 5-minute budget; giving up');
    process.exit(1);
  }, 300_000);
  watchdog.unref();
  await main();
}
