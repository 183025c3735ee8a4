// bench/summary: a filtered `offramp revenue summary` beside the export of the same window
// and filter, each as a child process (the built binary) against the emulator in this
// process (dist/emulator.js): 100,000 ledger rows over the last 180 days, 100 ms latency,
// no rate limit. The summary reads the rows through the export's page pipeline, so it
// should fetch the same pages no slower: target, its wall time at most 1.1x the export's.
// Runs alternate (export, summary, export, summary…) so a slow spell of the machine hits
// both; the ratio is of the medians. Requests are counted from each run's --verbose trace.
//
//   node bench/summary.mjs [--rows N] [--runs N] [--json]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/offramp.js');
const KEY = 'sk_test_bench_summary';
const DAY = 86_400_000;
const RUN_DEADLINE_MS = 150_000;
const TARGET = 1.1;

function option(args, name, fallback) {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : fallback;
}

/** One run in a child process: seconds and the requests it sent (answered 2xx). */
async function once({ url, dir, args, label }) {
  const env = { PATH: process.env.PATH, TMPDIR: dir, OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: url, OFFRAMP_CONFIG_DIR: join(dir, 'config'), CI: 'true', NO_COLOR: '1' };
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args, '--verbose'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const deadline = setTimeout(() => child.kill('SIGKILL'), RUN_DEADLINE_MS);
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(deadline);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${label} exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return { label, seconds, requests: (stderr.match(/^< 2\d\d /gm) ?? []).length, stdout };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const args = process.argv.slice(2);
  const rows = Number(option(args, '--rows', '100000'));
  const runs = Number(option(args, '--runs', '3'));
  const dir = mkdtempSync(join(tmpdir(), 'offramp-bench-summary-'));
  const { startEmulator } = await import(pathToFileURL(join(ROOT, 'dist/emulator.js')).href);
  const emu = await startEmulator({ port: 0, apiKeys: [KEY], seed: 1, latencyMs: 100, rateLimit: 0, seedRevenue: rows });
  const stop = setTimeout(() => process.exit(3), runs * 2 * RUN_DEADLINE_MS + 60_000);
  try {
    const now = Date.now();
    const window = ['--from', new Date(now - 181 * DAY).toISOString(), '--to', new Date(now + 60_000).toISOString(), '--token', 'usdt'];
    const exports = [];
    const summaries = [];
    for (let i = 0; i < runs; i++) {
      exports.push(await once({ url: emu.url, dir, label: 'export', args: ['revenue', 'export', ...window, '-o', 'csv', '--out', join(dir, 'rows.csv')] }));
      summaries.push(await once({ url: emu.url, dir, label: 'summary', args: ['revenue', 'summary', ...window, '--json'] }));
    }
    const counted = JSON.parse(summaries[0].stdout).transaction_count;
    const ratio = median(summaries.map((r) => r.seconds)) / median(exports.map((r) => r.seconds));
    const report = {
      emulator: { latencyMs: 100, rateLimit: 0, rows },
      rowsSummed: counted,
      export: { seconds: exports.map((r) => r.seconds), requests: exports[0].requests },
      summary: { seconds: summaries.map((r) => r.seconds), requests: summaries[0].requests },
      verdict: { ratio: { value: ratio, target: TARGET, pass: ratio <= TARGET }, requests: { pass: summaries[0].requests <= exports[0].requests } },
    };
    if (args.includes('--json')) console.log(JSON.stringify(report, null, 2));
    else {
      console.log(`revenue summary --token usdt vs revenue export --token usdt --out FILE, same window; emulator ${rows} rows, latency 100 ms (child processes)`);
      console.log(`export   requests ${report.export.requests}  seconds ${report.export.seconds.map((s) => s.toFixed(2)).join(' ')}`);
      console.log(`summary  requests ${report.summary.requests}  seconds ${report.summary.seconds.map((s) => s.toFixed(2)).join(' ')}  (${counted} rows summed)`);
      console.log(`summary / export (medians): ${ratio.toFixed(2)}x (target <= ${TARGET}) ${ratio <= TARGET ? 'PASS' : 'FAIL'}; requests ${report.verdict.requests.pass ? 'no more' : 'MORE'} than the export's`);
    }
    process.exitCode = report.verdict.ratio.pass && report.verdict.requests.pass ? 0 : 1;
  } finally {
    clearTimeout(stop);
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
