// bench/listen: verified, deduplicated, durable deliveries per second into
// `offramp webhooks listen` (the built binary, its store on disk: every accepted event is
// on disk before its 2xx), against a bare node:http server answering 200 to the same load
// in the same run, over loopback keep-alive connections (autocannon, in this process).
// Target (issue 15): the listener's deliveries/s at least 0.8x the bare server's.
//
// A third server runs in every round: the durable floor (bench/listen-floor.cjs), the
// least a listener can do and keep "2xx = on disk" (verify, parse, dedupe, one O_DSYNC
// write per batch). floor / bare is what this machine's durable write leaves of the bare
// server's rate; listener / floor is what the listener's own work costs on top.
//
// The load is EVENTS distinct signed events plus one duplicate for every DUP_EVERY of
// them (a redelivery of an earlier id), sent once each. Each round sends it to the bare
// server, the floor and a listener (each store fresh); the figure is the median round. A
// round's time runs from the first request to the last answer, measured here: autocannon's
// own `duration` only ends on its one-second tick, which would round a two-second run to
// three. Checked every round: every answer 2xx, each store holds exactly the distinct
// events, the listener's own exit tally agrees. Bounded: a fixed number of requests per
// round and a deadline per server; each server is stopped with SIGINT.
//
// --connections sets how many deliveries are in flight at once (each sync is shared by as
// many as are waiting); a list (32,256) measures each. --store-dir DIR puts the stores
// there instead of a temporary directory (a tmpfs, say, to see how much is the disk's sync).
//
//   node bench/listen.mjs [--events N] [--connections C[,C...]] [--rounds R] [--store-dir DIR] [--json]
import { spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/offramp.js');
const FLOOR = join(ROOT, 'bench/listen-floor.cjs');
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

/** The store's lines: exactly the distinct events of the load, once each? */
function storeHolds(store, events) {
  const lines = readFileSync(store, 'utf8').split('\n').filter(Boolean);
  const distinct = new Set(lines.map((l) => JSON.parse(l).id)).size;
  return { lines: lines.length, distinct, ok: lines.length === events && distinct === events };
}

const rate = (r) => r['2xx'] / r.seconds;

async function round({ events, connections, dir, storeDir, index, servers }) {
  const load = deliveries(events);
  const env = { OFFRAMP_WEBHOOK_SECRET: SECRET, OFFRAMP_CONFIG_DIR: join(dir, 'config') };

  const hello = await startServer(['-e', HELLO], {});
  servers.push(hello);
  const bare = await fire(hello.url, load, connections);
  await hello.stop();

  const floorStore = join(storeDir, `floor-${connections}-${index}.ndjson`);
  const floorServer = await startServer([FLOOR, floorStore], env);
  servers.push(floorServer);
  const floor = await fire(floorServer.url, load, connections);
  await floorServer.stop();

  const store = join(storeDir, `events-${connections}-${index}.ndjson`);
  const listener = await startServer([BIN, 'webhooks', 'listen', '--port', '0', '--store', store], env);
  servers.push(listener);
  const result = await fire(listener.url, load, connections);
  const { code, stderr } = await listener.stop();
  // Ctrl-C ends the listener with 130, as every interrupted command (README, exit codes).
  if (code !== 130) throw new Error(`the listener exited ${code}: ${stderr}`);

  const held = storeHolds(store, events);
  const floorHeld = storeHolds(floorStore, events);
  const tally = /Stopped \(SIGINT\)\. (.*)\./.exec(stderr)?.[1] ?? '';
  const stored = Number(/stored (\d+)/.exec(tally)?.[1] ?? NaN);
  const figures = (r) => ({ perSecond: rate(r), seconds: r.seconds, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors });
  return {
    deliveries: load.length,
    bare: figures(bare),
    floor: { ...figures(floor), storeCorrect: floorHeld.ok },
    listener: { ...figures(result), storedPerSecond: stored / result.seconds },
    ratio: rate(result) / rate(bare),
    floorRatio: rate(floor) / rate(bare),
    overFloor: rate(result) / rate(floor),
    storeCorrect: held.ok && stored === events,
    stored: held.lines,
    distinct: held.distinct,
    tally,
  };
}

export async function main(argv = process.argv.slice(2)) {
  const events = option(argv, '--events', 30_000);
  const connectionCounts = (textOption(argv, '--connections') ?? '32,256').split(',').map(Number);
  if (connectionCounts.some((c) => !Number.isInteger(c) || c < 1)) throw new Error('--connections: whole numbers, comma-separated');
  const rounds = option(argv, '--rounds', 3);
  const asJson = argv.includes('--json');
  const dir = mkdtempSync(join(tmpdir(), 'offramp-bench-listen-'));
  const given = textOption(argv, '--store-dir');
  const storeDir = given ? mkdtempSync(join(given, 'offramp-bench-listen-')) : dir;
  const servers = [];
  try {
    const groups = [];
    for (const connections of connectionCounts) {
      const results = [];
      for (let i = 0; i < rounds; i++) results.push(await round({ events, connections, dir, storeDir, index: i, servers }));
      const correct = results.every((r) => r.storeCorrect && r.floor.storeCorrect && r.listener.non2xx === 0 && r.bare.non2xx === 0 && r.floor.non2xx === 0);
      const medianRatio = median(results.map((r) => r.ratio));
      groups.push({
        connections,
        rounds: results,
        medianRatio,
        medianFloorRatio: median(results.map((r) => r.floorRatio)),
        medianOverFloor: median(results.map((r) => r.overFloor)),
        medianListenerPerSecond: median(results.map((r) => r.listener.perSecond)),
        medianFloorPerSecond: median(results.map((r) => r.floor.perSecond)),
        medianBarePerSecond: median(results.map((r) => r.bare.perSecond)),
        correct,
        pass: correct && medianRatio >= TARGET_RATIO,
      });
    }
    const report = { events, deliveries: groups[0].rounds[0].deliveries, target: TARGET_RATIO, groups, pass: groups.every((g) => g.pass) };
    if (asJson) {
      console.log(JSON.stringify(report, null, 2));
      return report;
    }
    console.log(`webhooks listen --store (on disk before each 2xx): ${events} events + ${report.deliveries - events} duplicates, loopback, ${rounds} rounds${given ? `, stores in ${given}` : ''}`);
    for (const g of groups) {
      console.log(`\n${g.connections} connections`);
      console.log('round  server                   seconds  deliveries/s  p50 ms  p99 ms  non-2xx  store');
      g.rounds.forEach((r, i) => {
        const n = String(i + 1).padEnd(5);
        const row = (name, f, store) => `${n}  ${name.padEnd(23)}  ${f.seconds.toFixed(2).padStart(7)}  ${f.perSecond.toFixed(0).padStart(12)}  ${String(f.p50).padStart(6)}  ${String(f.p99).padStart(6)}  ${String(f.non2xx).padStart(7)}  ${store}`;
        console.log(row('bare node:http (200)', r.bare, '—'));
        console.log(row('durable floor', r.floor, r.floor.storeCorrect ? 'ok' : 'WRONG'));
        console.log(row('offramp webhooks listen', r.listener, r.storeCorrect ? `ok (${r.stored} distinct)` : `WRONG (${r.stored} lines, ${r.distinct} distinct)`));
        console.log(`${n}  ratios: listener/bare ${r.ratio.toFixed(2)}, floor/bare ${r.floorRatio.toFixed(2)}, listener/floor ${r.overFloor.toFixed(2)}`);
      });
      console.log(`listener tally (last round): ${g.rounds.at(-1).tally}`);
      console.log(
        `median of ${rounds}: listener / bare ${g.medianRatio.toFixed(2)}x (target >= ${TARGET_RATIO}x) ${g.pass ? 'PASS' : 'FAIL'}; floor / bare ${g.medianFloorRatio.toFixed(2)}x; listener / floor ${g.medianOverFloor.toFixed(2)}x`,
      );
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
