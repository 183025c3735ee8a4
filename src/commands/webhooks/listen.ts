// offramp webhooks listen [--port P] [--secret S] [--store FILE.ndjson] [--forward-to URL]
//                         [--scheme NAME|any] [--tolerance SECONDS]
// A local webhook endpoint (src/lib/webhooks/receiver.ts does the work): the URL to give
// the service goes to stderr at start, one line per delivery to stdout (`-o ndjson` for
// JSON lines), and Ctrl-C (or SIGTERM) stops it with a summary on stderr, exit 0.
// Signatures: any scheme of the catalogue (src/lib/signature.ts) unless --scheme, or else
// the profile's saved choice (`offramp conform --save`), pins one.
import { resolve } from 'node:path';
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import { parseIntFlag } from '../../lib/input.js';
import { resolveFormat } from '../../lib/output/format.js';
import { DEFAULT_TOLERANCE_SEC, schemeSetting } from '../../lib/signature.js';
import { chalkFor } from '../../lib/output/render.js';
import { deliveryJson, deliveryLine, forwardLine, summaryLine, type LineStyle } from '../../lib/webhooks/describe.js';
import { startReceiver, type Receiver } from '../../lib/webhooks/receiver.js';

export type Options = { port?: string; secret?: string; store?: string; forwardTo?: string; scheme?: string; tolerance?: string };

/** --tolerance ceiling: a day; beyond that a timestamp no longer guards against replays. */
const MAX_TOLERANCE_SEC = 86_400;

/** How many transactions the stop summary lists. */
const SUMMARY_TRANSACTIONS = 10;

export async function run(opts: Options, ctx: Context): Promise<number> {
  const { io } = ctx;
  const port = parseIntFlag(opts.port ?? 8787, '--port', 0, 65535);
  const forwardTo = opts.forwardTo !== undefined ? forwardUrl(opts.forwardTo) : undefined;
  const format = resolveFormat(ctx.globals, ['table', 'ndjson', 'json']);
  const jsonLines = format !== 'table';
  if (opts.store !== undefined && opts.store.trim() === '') throw new UsageError('--store: give a file name');
  const storePath = opts.store ? resolve(opts.store) : undefined;
  const toleranceSec = parseIntFlag(opts.tolerance ?? DEFAULT_TOLERANCE_SEC, '--tolerance', 0, MAX_TOLERANCE_SEC);
  const scheme = opts.scheme !== undefined ? schemeSetting(opts.scheme, '--scheme') : schemeSetting((await ctx.service()).signatureScheme, "the profile's signature scheme");
  const secret = await ctx.webhookSecret(opts.secret);
  if (!secret) {
    throw new UsageError(
      'no webhook secret to verify signatures with',
      'set OFFRAMP_WEBHOOK_SECRET, store one with `offramp profile add NAME --webhook-secret-stdin`, or pass --secret',
    );
  }

  const style: LineStyle = { color: chalkFor(io, 'out'), friendlyTime: io.stdoutIsTTY };
  const lines = new LineBatcher((text) => io.out(text));
  let receiver: Receiver;
  try {
    receiver = await startReceiver({
      port,
      host: '127.0.0.1',
      secret,
      ...(scheme ? { scheme } : {}),
      toleranceSec,
      ...(storePath ? { storePath } : {}),
      ...(forwardTo ? { forwardTo } : {}),
      now: ctx.now,
      onEvent: (info) => lines.push(jsonLines ? JSON.stringify(deliveryJson(info)) : deliveryLine(info, style)),
      onForward: (result) => lines.push(jsonLines ? JSON.stringify({ time: ctx.now().toISOString(), forward: result }) : forwardLine(result, style)),
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw new UsageError(`port ${port} on 127.0.0.1 is already in use`, 'choose another with --port (0 picks a free one)');
    if (e.code === 'EACCES' && e.syscall === 'listen') throw new UsageError(`not allowed to listen on port ${port}`, 'use a port above 1023');
    if (e.code && storePath && e.path) throw new UsageError(`--store ${opts.store}: ${e.message}`);
    throw err;
  }

  const c = chalkFor(io, 'err');
  io.err(`Listening for webhooks on ${c.bold(receiver.url)}  (POST to any path)`);
  io.err(`Give the service this URL. With the emulator: offramp emulator --webhook-url ${receiver.url} --webhook-secret "$OFFRAMP_WEBHOOK_SECRET"`);
  if (storePath) {
    const loaded = receiver.loaded;
    const known = loaded && loaded.events > 0 ? ` (${loaded.events} events already in it count as received)` : '';
    io.err(`Storing new events in ${storePath}${known}`);
    if (loaded?.tornBytes) io.err(`warning: the store ended with a partial line (${loaded.tornBytes} bytes, a crash mid-write); it was removed`);
    if (loaded?.unreadable) io.err(`warning: ${loaded.unreadable} line(s) of the store are not events; they are kept but ignored`);
  }
  const pinnedBy = opts.scheme !== undefined ? '--scheme' : "the profile's setting; --scheme any accepts every scheme";
  const window = scheme === undefined || scheme === 'timestamped-sha256' ? `timestamps within ${toleranceSec} s` : '';
  io.err(scheme ? `Accepting only ${scheme} signatures (${pinnedBy})${window ? `, ${window}` : ''}` : `Accepting any signature scheme of the catalogue (${window})`);
  if (forwardTo) io.err(`Forwarding verified deliveries to ${forwardTo}`);
  io.err('Press Ctrl-C to stop.');

  const signal = await new Promise<NodeJS.Signals>((done) => {
    const stop = (sig: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done(sig);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

  await receiver.close();
  lines.flush();
  const stats = receiver.stats;
  io.err(`\nStopped (${signal}). ${summaryLine(stats)}.`);
  const statuses = receiver.statuses();
  if (statuses.length > 0) {
    io.err(`Latest status of ${statuses.length} transaction${statuses.length === 1 ? '' : 's'}${storePath ? ' (including the store)' : ''}:`);
    for (const [tx, status] of statuses.slice(-SUMMARY_TRANSACTIONS)) io.err(`  ${tx}  ${status}`);
    if (statuses.length > SUMMARY_TRANSACTIONS) io.err(`  … and ${statuses.length - SUMMARY_TRANSACTIONS} earlier`);
  }
  return 0;
}

function forwardUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--forward-to: "${value}" is not a URL`, 'write it like http://127.0.0.1:3000/webhooks');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--forward-to: only http and https URLs are supported');
  return url.toString();
}

/**
 * Event lines are written once per turn of the event loop, not once per delivery: under
 * a burst that is one write for many lines (stdout to a file or /dev/null is a
 * synchronous write each time).
 */
class LineBatcher {
  private pending: string[] = [];
  private scheduled = false;

  constructor(private readonly write: (text: string) => void) {}

  push(line: string): void {
    this.pending.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const text = `${this.pending.join('\n')}\n`;
    this.pending = [];
    this.write(text);
  }
}
