// bench/export: `offramp revenue export --out FILE` as a child process (the built binary)
// against the emulator in this process (dist/emulator.js), seeded with ledger rows over the
// last 180 days. Two cases:
//
// rate-limited (the default): the emulator at --rate-limit 40 requests/s and 250 ms
//   latency, 100,000 rows. The export at its default --concurrency beside other fixed
//   numbers of pages at once (--concurrency), the default CSV export at 10,000 rows, and
//   the default XLSX export at 100,000 rows. Targets: wall time within 1.25x of the ideal
//   (the fewest pages the rows need / 40 per second); every export finishes (the client's
//   retries absorb the 429s); peak RSS at 100,000 rows within 1.2x of 10,000; XLSX peak RSS
//   within 1.5x of the CSV run.
// latency: 20 ms latency, no rate limit: peak RSS at 10,000 vs 100,000 rows.
//
// Each child runs with --verbose: the bench counts the 429 answers and the retries in its
// trace. Peak RSS is the child's own process.resourceUsage().maxRSS, written at exit by a
// preloaded probe. Every run has a deadline; the whole bench stops itself.
//
//   node bench/export.mjs [--case rate-limited|latency] [--rows N] [--rate 40] [--concurrency 8,16] [--json]
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

/** One export in a child process: seconds, peak RSS (MB), rows, pages, 429 answers, retries. */
async function exportOnce({ url, dir, label, format = 'csv', concurrency }) {
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
    '--out', out,
    ...(concurrency ? ['--concurrency', String(concurrency)] : []),
  ];
  const env = { PATH: process.env.PATH, TMPDIR: dir, OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: url, OFFRAMP_CONFIG_DIR: join(dir, 'config'), CI: 'true', NO_COLOR: '1' };
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const deadline = setTimeout(() => child.kill('SIGKILL'), RUN_DEADLINE_MS);
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(deadline);
  const seconds = (performance.now() - started) / 1000;
  const closing = /Exported ([\d,]+) rows? \((\d+) slices?, (\d+) pages?\)/.exec(stderr);
  const error = /^error: .*/m.exec(stderr)?.[0];
  if (code === 6 && error) return { label, format, concurrency: concurrency ? String(concurrency) : 'default', failed: error };
  if (code !== 0 || !closing) throw new Error(`export (${label}) exited ${code}: ${stderr.trim().split('\n').filter((l) => !/^[<>] /.test(l)).slice(-12).join(' | ')}`);
  const bytes = statSync(out).size;
  rmSync(out);
  return {
    label,
    format,
    concurrency: concurrency ? String(concurrency) : 'default',
    seconds,
    rssMb: Number(readFileSync(rssFile, 'utf8')) / 1024,
    rows: Number(closing[1].replaceAll(',', '')),
    slices: Number(closing[2]),
    pages: Number(closing[3]),
    answers429: (stderr.match(/^< 429 /gm) ?? []).length,
    retries: (stderr.match(/^> GET .* \(retry \d+\)/gm) ?? []).length,
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

async function rateLimited(startEmulator, dir, rows, others, rate) {
  const small = Math.round(rows / 10);
  const emu = { latencyMs: 250, rateLimit: rate };
  const results = [];
  const extra = [];
  await withEmulator(startEmulator, { ...emu, seedRevenue: rows }, async (url) => {
    results.push(await exportOnce({ url, dir, label: 'default' }));
    results.push(await exportOnce({ url, dir, label: 'default-xlsx', format: 'xlsx' }));
    for (const n of others) extra.push(await exportOnce({ url, dir, label: `fixed-${n}`, concurrency: n }));
  });
  await withEmulator(startEmulator, { ...emu, seedRevenue: small }, async (url) => {
    results.push(await exportOnce({ url, dir, label: 'default-small' }));
  });
  const [run, xlsx, smallRun] = results;
  const ideal = Math.ceil(rows / 100) / emu.rateLimit;
  const verdict = {
    idealRatio: { value: run.seconds / ideal, target: TARGETS.idealRatio, pass: run.seconds / ideal <= TARGETS.idealRatio },
    rssRatio: { value: run.rssMb / smallRun.rssMb, target: TARGETS.rssRatio, pass: run.rssMb / smallRun.rssMb <= TARGETS.rssRatio },
    xlsxRatio: { value: xlsx.rssMb / run.rssMb, target: TARGETS.xlsxRatio, pass: xlsx.rssMb / run.rssMb <= TARGETS.xlsxRatio },
    others: extra.map((r) => ({ concurrency: r.concurrency, value: r.seconds / ideal })),
  };
  return { case: 'rate-limited', emulator: emu, rows, idealSeconds: ideal, results: [...results, ...extra], verdict };
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
  console.log('run             format  concurrency  rows      pages  seconds  rows/s   429s  retries  peak RSS MB');
  for (const r of report.results) {
    if (r.failed) {
      console.log(`${r.label.padEnd(15)} ${r.format.padEnd(7)} ${r.concurrency.padEnd(12)} exit 6: ${r.failed.slice(0, 200)}`);
      continue;
    }
    console.log(
      `${r.label.padEnd(15)} ${r.format.padEnd(7)} ${r.concurrency.padEnd(12)} ${String(r.rows).padEnd(9)} ${String(r.pages).padStart(5)}  ${r.seconds.toFixed(2).padStart(7)}  ${String(Math.round(r.rows / r.seconds)).padStart(7)}  ${String(r.answers429).padStart(4)}  ${String(r.retries).padStart(7)}  ${r.rssMb.toFixed(1).padStart(11)}`,
    );
  }
  const v = report.verdict;
  const line = (name, x, unit = 'x') => console.log(`${name}: ${x.value.toFixed(2)}${unit}${x.target !== undefined ? ` (target ${name.startsWith('requests') ? '' : '<= '}${x.target}${unit}) ${x.pass ? 'PASS' : 'FAIL'}` : ''}`);
  if (report.idealSeconds !== undefined) {
    console.log(`ideal: ${report.idealSeconds.toFixed(1)} s (${Math.ceil(report.rows / 100)} pages / ${e.rateLimit} per second)`);
    line('default vs ideal', v.idealRatio);
    for (const o of v.others) line(`--concurrency ${o.concurrency} vs ideal`, o);
    line(`peak RSS ${report.rows} vs ${Math.round(report.rows / 10)} rows`, v.rssRatio);
    line('peak RSS XLSX vs CSV', v.xlsxRatio);
  } else {
    line(`peak RSS ${report.rows} vs ${Math.round(report.rows / 10)} rows`, v.rssRatio);
  }
}

export async function main(argv = process.argv.slice(2)) {
  const which = option(argv, '--case', 'rate-limited');
  const rows = Number(option(argv, '--rows', 100_000));
  const others = option(argv, '--concurrency', '').split(',').filter(Boolean).map(Number);
  const { startEmulator } = await import(pathToFileURL(join(ROOT, 'dist/emulator.js')).href).catch(() => {
    throw new Error('dist/emulator.js is missing: run `npm run build` first');
  });
  const dir = mkdtempSync(join(tmpdir(), 'offramp-bench-export-'));
  let report;
  try {
    report = which === 'latency' ? await latency(startEmulator, dir, rows) : await rateLimited(startEmulator, dir, rows, others, Number(option(argv, '--rate', 40)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (argv.includes('--json')) console.log(JSON.stringify(report, null, 2));
  else print(report);
  return report;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const watchdog = setTimeout(() => {
    console.error('bench/export: over its 10-minute budget; giving up');
    process.exit(1);
  }, 600_000);
  watchdog.unref();
  await main();
}
