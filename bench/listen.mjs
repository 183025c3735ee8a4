// bench/listen: verified, deduplicated, durable deliveries per second into
// `offramp webhooks listen` (the built binary, its store on disk: every accepted event is
// on disk before its 2xx), against a bare node:http server answering 200 to the same load
// in the same run, over loopback keep-alive connections (autocannon, in this process).
// Target (issue 15): the listener's deliveries/s at least 0.8x the bare server's.
//
// The load is EVENTS distinct signed events plus one duplicate for every DUP_EVERY of
// them (a redelivery of an earlier id), sent once each. Each round sends it to the bare
// server, then to a listener on a fresh store; the figure is the median round. A round's
// time runs from the first request to the last answer, measured here: autocannon's own
// `duration` only ends on its one-second tick, which would round a two-second run to three.
// Checked every round: every answer 2xx, the store holds exactly the distinct events, the
// listener's own exit tally agrees. Bounded: a fixed number of requests per round and a
// deadline per server; each listener is stopped with SIGINT.
//
// --store-dir DIR puts the listener's stores there instead of a temporary directory (a tmpfs,
// say, to see how much of the gap is the disk's sync); --connections sets how many deliveries
// are in flight at once (each sync is shared by as many as are waiting).
//
//   node bench/listen.mjs [--events N] [--connections C] [--rounds R] [--store-dir DIR] [--json]
import { spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/offramp.js');
const SECRET = 'whsec_bench_listen';
const TARGET_RATIO = 0.8;
const DUP_EVERY = 10;
const TYPES = ['transaction.created', 'deposit.detected', 'deposit.confirmed', 'transaction.completed'];

function option(args, name, fallback) {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? Number(args[at + 1]) : fallback;
}

function textOption(args, name) {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

/** Signed delivery bodies, made before the clock starts: four lifecycle events per transaction. */
function deliveries(count) {
  const out = [];
  let tx = randomUUID();
  for (let i = 0; i < count; i++) {
    if (i % TYPES.length === 0) tx = randomUUID();
    const body = JSON.stringify({ id: randomUUID(), type: TYPES[i % TYPES.length], data: { id: tx, status: 'x', amount: '150000.00', crypto_amount: '98.039215' } });
    out.push({ body, signature: createHmac('sha256', SECRET).update(body).digest('hex') });
    if (i % DUP_EVERY === DUP_EVERY - 1) out.push(out[out.length - 1 - Math.floor(DUP_EVERY / 2)]);
  }
  return out;
}

const HELLO = `
const s = require('node:http').createServer((req, res) => { req.on('data', () => {}); req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"received":true}'); }); });
s.listen(0, '127.0.0.1', () => process.stderr.write('Listening for webhooks on http://127.0.0.1:' + s.address().port + '/\\n'));
process.on('SIGINT', () => process.exit(0));`;

/** Starts a server process that prints "Listening for webhooks on URL" on stderr. */
async function startServer(args, env) {
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH, CI: 'true', NO_COLOR: '1', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const deadline = setTimeout(() => child.kill('SIGKILL'), 120_000);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(deadline);
      resolve(code);
    }),
  );
  let url;
  for (let i = 0; i < 400 && !url; i++) {
    url = /Listening for webhooks on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr)?.[1];
    if (!url) await new Promise((r) => setTimeout(r, 25));
  }
  if (!url) {
    child.kill('SIGKILL');
    throw new Error(`the server did not start: ${stderr}`);
  }
  const stop = async () => {
    child.kill('SIGINT');
    return { code: await exited, stderr };
  };
  return { url, stop, kill: () => child.exitCode === null && child.kill('SIGKILL') };
}

/** Sends every delivery once over `connections` keep-alive connections; seconds from the first request to the last answer. */
async function fire(url, load, connections) {
  let next = 0;
  let last = 0;
  const started = performance.now();
  const instance = autocannon({
    url,
    connections,
    amount: load.length,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => {
          const d = load[next++ % load.length];
          return { ...req, body: d.body, headers: { 'content-type': 'application/json', 'x-svc-webhook-signature': d.signature } };
        },
      },
    ],
  });
  instance.on('response', () => (last = performance.now()));
  const result = await instance;
  return { ...result, seconds: (last - started) / 1000 };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function round({ events, connections, dir, storeDir, index, servers }) {
  const store = join(storeDir, `events-${index}.ndjson`);
  const load = deliveries(events);

  const hello = await startServer(['-e', HELLO], {});
  servers.push(hello);
  const bare = await fire(hello.url, load, connections);
  await hello.stop();

  const listener = await startServer([BIN, 'webhooks', 'listen', '--port', '0', '--store', store], {
    OFFRAMP_WEBHOOK_SECRET: SECRET,
    OFFRAMP_CONFIG_DIR: join(dir, 'config'),
  });
  servers.push(listener);
  const result = await fire(listener.url, load, connections);
  const { code, stderr } = await listener.stop();
  if (code !== 0) throw new Error(`the listener exited ${code}: ${stderr}`);

  const lines = readFileSync(store, 'utf8').split('\n').filter(Boolean);
  const distinct = new Set(lines.map((l) => JSON.parse(l).id)).size;
  const tally = /Stopped \(SIGINT\)\. (.*)\./.exec(stderr)?.[1] ?? '';
  const stored = Number(/stored (\d+)/.exec(tally)?.[1] ?? NaN);
  return {
    deliveries: load.length,
    bare: { perSecond: bare['2xx'] / bare.seconds, seconds: bare.seconds, p50: bare.latency.p50, p99: bare.latency.p99, non2xx: bare.non2xx },
    listener: {
      perSecond: result['2xx'] / result.seconds,
      storedPerSecond: stored / result.seconds,
      seconds: result.seconds,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
    },
    ratio: result['2xx'] / result.seconds / (bare['2xx'] / bare.seconds),
    storeCorrect: lines.length === events && distinct === events && stored === events,
    stored: lines.length,
    distinct,
    tally,
  };
}

export async function main(argv = process.argv.slice(2)) {
  const events = option(argv, '--events', 30_000);
  const connections = option(argv, '--connections', 32);
  const rounds = option(argv, '--rounds', 3);
  const asJson = argv.includes('--json');
  const dir = mkdtempSync(join(tmpdir(), 'offramp-bench-listen-'));
  const given = textOption(argv, '--store-dir');
  const storeDir = given ? mkdtempSync(join(given, 'offramp-bench-listen-')) : dir;
  const servers = [];
  try {
    const results = [];
    for (let i = 0; i < rounds; i++) results.push(await round({ events, connections, dir, storeDir, index: i, servers }));
    const ratio = median(results.map((r) => r.ratio));
    const allCorrect = results.every((r) => r.storeCorrect && r.listener.non2xx === 0 && r.bare.non2xx === 0);
    const pass = ratio >= TARGET_RATIO && allCorrect;
    const report = {
      events,
      deliveries: results[0].deliveries,
      connections,
      rounds: results,
      medianRatio: ratio,
      medianListenerPerSecond: median(results.map((r) => r.listener.perSecond)),
      medianBarePerSecond: median(results.map((r) => r.bare.perSecond)),
      target: TARGET_RATIO,
      pass,
    };
    if (asJson) {
      console.log(JSON.stringify(report, null, 2));
    } else {
      console.log(`webhooks listen --store (on disk before each 2xx): ${events} events + ${results[0].deliveries - events} duplicates, ${connections} connections, loopback, ${rounds} rounds${given ? `, stores in ${given}` : ''}`);
      console.log('round  server                   seconds  deliveries/s  stored/s  p50 ms  p99 ms  non-2xx  store');
      results.forEach((r, i) => {
        const n = String(i + 1).padEnd(5);
        console.log(`${n}  bare node:http (200)     ${r.bare.seconds.toFixed(2).padStart(7)}  ${r.bare.perSecond.toFixed(0).padStart(12)}  ${'—'.padStart(8)}  ${String(r.bare.p50).padStart(6)}  ${String(r.bare.p99).padStart(6)}  ${String(r.bare.non2xx).padStart(7)}  —`);
        console.log(
          `${n}  offramp webhooks listen  ${r.listener.seconds.toFixed(2).padStart(7)}  ${r.listener.perSecond.toFixed(0).padStart(12)}  ${r.listener.storedPerSecond.toFixed(0).padStart(8)}  ${String(r.listener.p50).padStart(6)}  ${String(r.listener.p99).padStart(6)}  ${String(r.listener.non2xx).padStart(7)}  ${r.storeCorrect ? `ok (${r.stored} distinct)` : `WRONG (${r.stored} lines, ${r.distinct} distinct)`}  ratio ${r.ratio.toFixed(2)}`,
        );
      });
      console.log(`listener tally (last round): ${results.at(-1).tally}`);
      console.log(`listener / bare node:http, median of ${rounds}: ${ratio.toFixed(2)}x (target >= ${TARGET_RATIO}x) ${pass ? 'PASS' : 'FAIL'}`);
    }
    return report;
  } finally {
    for (const server of servers) server.kill();
    rmSync(dir, { recursive: true, force: true });
    rmSync(storeDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = await main();
  process.exitCode = report.pass ? 0 : 1;
}
