// bench/listen: verified, deduplicated events per second into `offramp webhooks listen`
// (the built binary, its store on disk: every accepted event is fsynced before the 2xx)
// from this process over loopback keep-alive connections (autocannon).
// Target (issue 6): 3,000 events/s.
//
// The load is EVENTS distinct signed events plus one duplicate for every DUP_EVERY of
// them (a redelivery of an earlier id), sent once each. Reported: deliveries/s (all 2xx),
// accepted/s (new events stored, the figure the target is about), latency, and a check
// that the store holds exactly the distinct events. Bounded: a fixed number of requests
// and a deadline; the listener is stopped with SIGINT (its own summary is checked too).
// For scale, the same load first goes to a bare node:http server that answers 200 and
// does nothing else: the ceiling of any Node listener on this machine at that moment.
//
//   node bench/listen.mjs [--events N] [--connections C] [--json]
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
const TARGET = 3000;
const DUP_EVERY = 10;
const TYPES = ['transaction.created', 'deposit.detected', 'deposit.confirmed', 'transaction.completed'];

function option(args, name, fallback) {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? Number(args[at + 1]) : fallback;
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
  const exited = new Promise((resolve) => child.on('close', (code) => {
    clearTimeout(deadline);
    resolve(code);
  }));
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

/** Sends every delivery once over `connections` keep-alive connections. */
async function fire(url, load, connections) {
  let next = 0;
  return autocannon({
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
}

export async function main(argv = process.argv.slice(2)) {
  const events = option(argv, '--events', 30_000);
  const connections = option(argv, '--connections', 32);
  const asJson = argv.includes('--json');
  const dir = mkdtempSync(join(tmpdir(), 'offramp-bench-listen-'));
  const store = join(dir, 'events.ndjson');
  const load = deliveries(events);
  const servers = [];
  try {
    const hello = await startServer(['-e', HELLO], {});
    servers.push(hello);
    const bare = await fire(hello.url, load, connections);
    await hello.stop();
    const helloPerSecond = bare['2xx'] / bare.duration;

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
    const summary = /Stopped \(SIGINT\)\. (.*)\./.exec(stderr)?.[1] ?? '';
    const accepted = Number(/(\d+) accepted/.exec(summary)?.[1] ?? NaN);
    const seconds = result.duration;
    const report = {
      requests: result.requests.total,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      seconds,
      deliveriesPerSecond: result['2xx'] / seconds,
      acceptedPerSecond: accepted / seconds,
      bareNodeHttpPerSecond: helloPerSecond,
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
      stored: lines.length,
      storeCorrect: lines.length === events && distinct === events && accepted === events,
      listenerSummary: summary,
    };
    const pass = report.acceptedPerSecond >= TARGET && report.storeCorrect && report.non2xx === 0;
    if (asJson) {
      console.log(JSON.stringify({ ...report, target: TARGET, pass }, null, 2));
    } else {
      console.log(`webhooks listen --store (synced to disk before each 2xx): ${events} events + ${load.length - events} duplicates, ${connections} connections, loopback`);
      console.log('server                  requests  seconds  deliveries/s  accepted/s  p50 ms  p99 ms  non-2xx  store');
      console.log(
        `bare node:http (200)    ${String(bare.requests.total).padEnd(9)} ${bare.duration.toFixed(2).padStart(7)}  ${helloPerSecond.toFixed(0).padStart(12)}  ${'—'.padStart(10)}  ${String(bare.latency.p50).padStart(6)}  ${String(bare.latency.p99).padStart(6)}  ${String(bare.non2xx).padStart(7)}  —`,
      );
      console.log(
        `offramp webhooks listen ${String(report.requests).padEnd(9)} ${seconds.toFixed(2).padStart(7)}  ${report.deliveriesPerSecond.toFixed(0).padStart(12)}  ${report.acceptedPerSecond.toFixed(0).padStart(10)}  ${String(report.latencyMs.p50).padStart(6)}  ${String(report.latencyMs.p99).padStart(6)}  ${String(report.non2xx).padStart(7)}  ${report.storeCorrect ? `ok (${report.stored} distinct)` : `WRONG (${report.stored} lines, ${distinct} distinct)`}`,
      );
      console.log(`listener: ${summary}`);
      console.log(`verified, deduplicated events/s: ${report.acceptedPerSecond.toFixed(0)} (target >= ${TARGET}) ${pass ? 'PASS' : 'FAIL'}; ${((100 * report.deliveriesPerSecond) / helloPerSecond).toFixed(0)}% of bare node:http here`);
    }
    return { ...report, pass };
  } finally {
    for (const server of servers) server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
}
