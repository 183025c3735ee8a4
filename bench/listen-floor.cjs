// The durable floor for bench/listen: the least a listener can do and still keep the
// rule of issue 15 (a 2xx only once the event's line is on disk). Verify the hex
// HMAC-SHA256 signature, parse the body, drop a known id, append the same v2 line
// `webhooks listen` writes to an O_DSYNC file, one write per batch of whatever arrived
// meanwhile (group commit), answer 200 after the batch's write returns. No catalogue of
// schemes, no statuses, no output, no forwarding, no recovery of a failed write.
//
// Measured in the same run as the bare server and the listener, it shows how much of the
// gap to the bare server is the machine's durable write (floor / bare) and how much is the
// listener's own work (listener / floor). Not part of the CLI.
//
//   OFFRAMP_WEBHOOK_SECRET=... node bench/listen-floor.cjs STORE
const { createHmac, createSecretKey, timingSafeEqual } = require('node:crypto');
const { constants, openSync, write } = require('node:fs');
const { createServer } = require('node:http');

const key = createSecretKey(Buffer.from(process.env.OFFRAMP_WEBHOOK_SECRET ?? '', 'utf8'));
const fd = openSync(process.argv[2], constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC, 0o600);
const seen = new Set();
let queue = [];
let writing = false;
let received = 0;
let stored = 0;

function flush() {
  if (writing || queue.length === 0) return;
  const batch = queue;
  queue = [];
  writing = true;
  const buffer = Buffer.from(batch.map((p) => p.line).join(''));
  write(fd, buffer, 0, buffer.length, null, (err) => {
    writing = false;
    for (const p of batch) p.done(!err);
    flush();
  });
}

function answer(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    received++;
    const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const signature = String(req.headers['x-svc-webhook-signature'] ?? '');
    const given = Buffer.from(signature, 'hex');
    const expected = createHmac('sha256', key).update(raw).digest();
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return answer(res, 401, '{"error":"signature"}');
    const text = raw.toString('utf8');
    const event = JSON.parse(text);
    if (seen.has(event.id)) return answer(res, 200, '{"received":true,"duplicate":true}');
    seen.add(event.id);
    const line = `{"v":2,"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"received_at":"${new Date().toISOString()}","scheme":"hmac-sha256-hex","signature":${JSON.stringify(signature)},"body":${JSON.stringify(text)}}\n`;
    queue.push({
      line,
      done: (ok) => {
        if (!ok) {
          seen.delete(event.id);
          return answer(res, 503, '{"error":"store"}');
        }
        stored++;
        answer(res, 200, '{"received":true,"duplicate":false}');
      },
    });
    flush();
  });
});

server.listen(0, '127.0.0.1', () => process.stderr.write(`Listening for webhooks on http://127.0.0.1:${server.address().port}/\n`));
process.on('SIGINT', () => {
  process.stderr.write(`\nStopped (SIGINT). received ${received}, stored ${stored}.\n`);
  process.exit(130);
});
