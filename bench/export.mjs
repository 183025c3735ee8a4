// bench/export: `offramp revenue export --out FILE` as a child process (the built binary)
// against the emulator in this process (dist/emulator.js), seeded with ledger rows over the
// last 180 days. Two cases:
//
// rate-limited (issue 17; the default): the emulator at --rate-limit 40 requests/s and
//   250 ms latency, 100,000 rows. The export as shipped (concurrency adapting from 4) beside
//   the same export held at a fixed 4 pages at once (OFFRAMP_EXPORT_MAX_CONCURRENCY=4), the
//   adaptive CSV export at 10,000 rows, and the adaptive XLSX export at 100,000 rows.
//   Targets: wall time within 1.25x of the ideal (the fewest pages the rows need / 40 per
//   second); no request ending in an error; peak RSS at 100,000 rows within 1.2x of 10,000;
//   XLSX peak RSS within 1.5x of the CSV run.
// latency (issue 6): 20 ms latency, no rate limit: peak RSS at 10,000 vs 100,000 rows.
//
// Each child runs with --verbose: the bench counts the 429 answers in its trace, and the
// pages the export itself had to wait out after the client's retries (a request that ended
// in an error). Peak RSS is the child's own process.resourceUsage().maxRSS, written at exit
// by a preloaded probe. Every run has a deadline; the whole bench stops itself.
//
//   node bench/export.mjs [--case rate-limited|latency] [--rows N] [--json]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/offramp.js');
const KEY = 'sk_test_bench_export';
const DAY = 86_400_000;
const RUN_DEADLINE_MS = 150_000;
const TARGETS = { idealRatio: 1.25, rssRatio: 1.2, xlsxRatio: 1.5 };

function option(args, name, fallback) {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : fallback;
}

/** One export in a child process: seconds, peak RSS (MB), rows, pages, 429 answers, pages that failed. */
async function exportOnce({ url, dir, label, format = 'csv', fixed }) {
  const out = join(dir, `${label}.${format}`);
  const rssFile = join(dir, `${label}.rss`);
  const probe = join(dir, 'rss-probe.mjs');
  writeFileSync(
    probe,
    `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  const now = Date.now();
  const args = [
    '--import', pathToFileURL(probe).href, BIN,
    'revenue', 'export', '--verbose',
    '--from', new Date(now - 181 * DAY).toISOString(), '--to', new Date(now + 60_000).toISOString(),
    '-o', format, '--out', out,
  ];
  const env = { PATH: process.env.PATH, TMPDIR: dir, OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: url, OFFRAMP_CONFIG_DIR: join(dir, 'config'), CI: 'true', NO_COLOR: '1' };
  if (fixed) env.OFFRAMP_EXPORT_MAX_CONCURRENCY = String(fixed);
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const deadline = setTimeout(() => child.kill('SIGKILL'), RUN_DEADLINE_MS);
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(deadline);
  const seconds = (performance.now() - started) / 1000;
  const closing = /Exported ([\d,]+) rows? \((\d+) slices?, (\d+) pages?\)/.exec(stderr);
  if (code !== 0 || !closing) throw new Error(`export (${label}) exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const bytes = statSync(out).size;
  rmSync(out);
  return {
    label,
    format,
    concurrency: fixed ? `fixed ${fixed}` : 'adaptive',
    seconds,
    rssMb: Number(readFileSync(rssFile, 'utf8')) / 1024,
    rows: Number(closing[1].replaceAll(',', '')),
    slices: Number(closing[2]),
    pages: Number(closing[3]),
    answers429: (stderr.match(/^< 429 /gm) ?? []).length,
    failedRequests: (stderr.match(/^ {2}throttled: /gm) ?? []).length,
    bytes,
  };
}

async function withEmulator(startEmulator, options, body) {
  const emu = await startEmulator({ port: 0, apiKeys: [KEY], seed: 1, ...options });
  try {
    return await body(emu.url);
  } finally {
    await emu.close();
  }
}

async function rateLimited(startEmulator, dir, rows) {
  const small = Math.round(rows / 10);
  const emu = { latencyMs: 250, rateLimit: 40 };
  const results = [];
  await withEmulator(startEmulator, { ...emu, seedRevenue: rows }, async (url) => {
    results.push(await exportOnce({ url, dir, label: 'adaptive' }));
    results.push(await exportOnce({ url, dir, label: 'fixed-4', fixed: 4 }));
    results.push(await exportOnce({ url, dir, label: 'adaptive-xlsx', format: 'xlsx' }));
  });
  await withEmulator(startEmulator, { ...emu, seedRevenue: small }, async (url) => {
    results.push(await exportOnce({ url, dir, label: 'adaptive-small' }));
  });
  const [adaptive, fixed, xlsx, smallRun] = results;
  const ideal = Math.ceil(rows / 100) / emu.rateLimit;
  const verdict = {
    idealRatio: { value: adaptive.seconds / ideal, target: TARGETS.idealRatio, pass: adaptive.seconds / ideal <= TARGETS.idealRatio },
    failedRequests: { value: adaptive.failedRequests, target: 0, pass: adaptive.failedRequests === 0 },
    rssRatio: { value: adaptive.rssMb / smallRun.rssMb, target: TARGETS.rssRatio, pass: adaptive.rssMb / smallRun.rssMb <= TARGETS.rssRatio },
    xlsxRatio: { value: xlsx.rssMb / adaptive.rssMb, target: TARGETS.xlsxRatio, pass: xlsx.rssMb / adaptive.rssMb <= TARGETS.xlsxRatio },
    fixedRatio: { value: fixed.seconds / ideal },
  };
  return { case: 'rate-limited', emulator: emu, rows, idealSeconds: ideal, results, verdict };
}

async function latency(startEmulator, dir, rows) {
  const small = Math.round(rows / 10);
  const results = [];
  for (const count of [rows, small]) {
    await withEmulator(startEmulator, { latencyMs: 20, rateLimit: 0, seedRevenue: count }, async (url) => {
      results.push(await exportOnce({ url, dir, label: `latency-${count}` }));
    });
  }
  const [big, smallRun] = results;
  return {
    case: 'latency',
    emulator: { latencyMs: 20, rateLimit: 0 },
    rows,
    results,
    verdict: { rssRatio: { value: big.rssMb / smallRun.rssMb, target: TARGETS.rssRatio, pass: big.rssMb / smallRun.rssMb <= TARGETS.rssRatio } },
  };
}

function print(report) {
  const e = report.emulator;
  console.log(`revenue export --out FILE, emulator latency ${e.latencyMs} ms${e.rateLimit ? `, --rate-limit ${e.rateLimit}/s` : ''} (child process; peak RSS = its maxRSS)`);
  console.log('run             format  concurrency  rows      pages  seconds  rows/s   429s  failed  peak RSS MB');
  for (const r of report.results) {
    console.log(
      `${r.label.padEnd(15)} ${r.format.padEnd(7)} ${r.concurrency.padEnd(12)} ${String(r.rows).padEnd(9)} ${String(r.pages).padStart(5)}  ${r.seconds.toFixed(2).padStart(7)}  ${String(Math.round(r.rows / r.seconds)).padStart(7)}  ${String(r.answers429).padStart(4)}  ${String(r.failedRequests).padStart(6)}  ${r.rssMb.toFixed(1).padStart(11)}`,
    );
  }
  const v = report.verdict;
  const line = (name, x, unit = 'x') => console.log(`${name}: ${x.value.toFixed(2)}${unit}${x.target !== undefined ? ` (target ${name.startsWith('requests') ? '' : '<= '}${x.target}${unit}) ${x.pass ? 'PASS' : 'FAIL'}` : ''}`);
  if (report.idealSeconds !== undefined) {
    console.log(`ideal: ${report.idealSeconds.toFixed(1)} s (${Math.ceil(report.rows / 100)} pages / ${e.rateLimit} per second)`);
    line('adaptive vs ideal', v.idealRatio);
    line('fixed 4 vs ideal', v.fixedRatio);
    console.log(`requests that ended in an error: ${v.failedRequests.value} (target 0) ${v.failedRequests.pass ? 'PASS' : 'FAIL'}`);
    line(`peak RSS ${report.rows} vs ${Math.round(report.rows / 10)} rows`, v.rssRatio);
    line('peak RSS XLSX vs CSV', v.xlsxRatio);
  } else {
    line(`peak RSS ${report.rows} vs ${Math.round(report.rows / 10)} rows`, v.rssRatio);
  }
}

export async function main(argv = process.argv.slice(2)) {
  const which = option(argv, '--case', 'rate-limited');
  const rows = Number(option(argv, '--rows', 100_000));
  const { startEmulator } = await import(pathToFileURL(join(ROOT, 'dist/emulator.js')).href).catch(() => {
    throw new Error('dist/emulator.js is missing: run `npm run build` first');
  });
  const dir = mkdtempSync(join(tmpdir(), 'offramp-bench-export-'));
  let report;
  try {
    report = which === 'latency' ? await latency(startEmulator, dir, rows) : await rateLimited(startEmulator, dir, rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (argv.includes('--json')) console.log(JSON.stringify(report, null, 2));
  else print(report);
  return report;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const watchdog = setTimeout(() => {
    console.error('bench/export: over its 6-minute budget; giving up');
    process.exit(1);
  }, 360_000);
  watchdog.unref();
  await main();
}
