// offramp demo: the one-command tour (docs/sandbox.md, "offramp demo"). It builds its own
// client for the emulator: no stored profile is read or written, and the generated secrets
// are never printed.
import { randomBytes } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { Command } from '@commander-js/extra-typings';
import { statusHistory } from '../lib/client/checked-calls.js';
import type { Context } from '../lib/context.js';
import { formatsOf, resolveFormat } from '../lib/output/format.js';
import { CliError, EXIT } from '../lib/errors.js';
import { writeJson } from '../lib/output/json.js';
import { expectedEventTypes, missingEvents } from '../lib/sandbox/invariants.js';
import { ledgerRows } from '../lib/sandbox/smoke.js';
import { Timeline } from '../lib/sandbox/timeline.js';
import { runWalk, WalkInterrupted } from '../lib/sandbox/walk.js';
import { renderHistory, renderLedgerRow, renderTransaction } from '../lib/tx/render.js';
import type { DeliveryInfo } from '../lib/webhooks/receiver.js';
import { examples, type OptionsOf } from './command.js';

export const command = () =>
  new Command('demo').description('the one-command tour: emulator, listener, one transaction end to end').addHelpText('after', examples('offramp demo'));

/** How long the tour waits for the last webhooks after the walk (they usually take ms). */
const DELIVERY_WAIT_MS = 5_000;

export async function run(_opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  resolveFormat(ctx.globals, formatsOf('demo'));
  const { io } = ctx;
  const apiKey = `sk_demo_${randomBytes(16).toString('hex')}`;
  const secret = `whsec_demo_${randomBytes(24).toString('hex')}`;
  io.addSecret(apiKey);
  io.addSecret(secret);

  const [{ startEmulator }, { startReceiver }, { createApi }] = await Promise.all([
    import('../emulator/index.js'),
    import('../lib/webhooks/receiver.js'),
    import('../lib/client/api.js'),
  ]);
  const timeline = await Timeline.create(io);

  const deliveries: DeliveryInfo[] = [];
  const arrivals = new EventEmitter();
  // A step's webhook usually lands while the step is still reading the transaction back;
  // it is held until the step's line is out, so that each webhook reads under its step.
  let stepRunning = false;
  const held: string[] = [];
  const show = (line: string) => (stepRunning ? held.push(line) : timeline.note(line));
  const flush = () => {
    stepRunning = false;
    for (const line of held.splice(0)) timeline.note(line);
  };
  const receiver = await startReceiver({
    port: 0,
    secret,
    onEvent(info) {
      deliveries.push(info);
      show(describeDelivery(info));
      arrivals.emit('delivery');
    },
  });
  const stops: (() => Promise<void>)[] = [() => receiver.close()];
  try {
    // Retries a few hundred ms apart rather than the emulator's default 500 ms doubling:
    // the tour lasts seconds.
    const emulator = await startEmulator({
      port: 0,
      apiKeys: [apiKey],
      webhookUrl: receiver.url,
      webhookSecret: secret,
      webhookRetry: { maxAttempts: 3, baseDelayMs: 200 },
    });
    stops.unshift(() => emulator.close());
    const http = await ctx.httpClient({ baseUrl: emulator.url, apiKey, purpose: 'demo', direct: true });
    stops.unshift(() => http.close());
    const api = createApi(http);

    io.err(`emulator  ${emulator.url}  (in-process, staging, generated API key)`);
    io.err(`webhooks  ${receiver.url}  (signatures checked with a generated secret)`);
    io.err('');

    let walked;
    try {
      walked = await runWalk(
        api,
        { outcome: 'completed', settle: true, now: ctx.now, sleep: ctx.sleep, timeoutMs: ctx.globals.timeout },
        {
          onBegin: (i) => {
            stepRunning = true;
            timeline.begin(i);
          },
          onStep: (i) => {
            timeline.done(i);
            flush();
          },
        },
      );
    } catch (err) {
      timeline.fail();
      flush();
      throw err instanceof WalkInterrupted ? err.cause : err;
    }
    const tx = walked.transaction;

    // Each step should have produced one webhook; wait for them all (or the deadline).
    const expected = expectedEventTypes(walked.steps);
    const missing = () => missingEvents(deliveries.filter((d) => d.verified && d.transactionId === tx.id && !d.duplicate).map((d) => d.type), expected);
    const deadline = AbortSignal.timeout(DELIVERY_WAIT_MS);
    while (missing().length > 0 && !deadline.aborted) await once(arrivals, 'delivery', { signal: deadline }).catch(() => undefined);

    const history = await statusHistory(api, tx.id);
    const row = (await ledgerRows(api, tx, ctx.now())).rows.at(-1);

    const webhooks = deliveries.map((d) => ({ id: d.id, type: d.type, verified: d.verified, duplicate: d.duplicate, status: d.status }));
    if (ctx.globals.json) {
      writeJson(io, { transaction: tx, steps: walked.steps, webhooks, history: history.history, ledger_row: row ?? null });
    } else {
      io.out('\n');
      renderTransaction(io, tx, ctx.now(), 'snapshot');
      io.out('\nstatus history\n');
      renderHistory(io, history, ctx.now());
      io.out('\n');
      if (row) renderLedgerRow(io, row, ctx.now());
    }

    const problems = [
      ...missing().map((type) => `no verified ${type} webhook arrived within ${DELIVERY_WAIT_MS / 1000} s`),
      ...deliveries.filter((d) => !d.verified).map((d) => `a delivery failed verification: ${d.error ?? d.reception}`),
      ...(row ? [] : [`no ledger row for ${tx.id} in GET /revenue`]),
    ];
    if (problems.length > 0) throw new CliError(`the demo did not go as it should: ${problems.join('; ')}`, 'DEMO_FAILED', EXIT.failure);
    io.err('');
    io.err(`done: ${expected.length} webhooks received, each signature verified; emulator and receiver stopped.`);
    io.err('next: `offramp emulator` to keep one running, `offramp webhooks listen` to receive its webhooks.');
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
  }
}

/** `  ↳ webhook deposit.detected  verified  evt 5d0e…  tx now deposit_confirming` */
function describeDelivery(d: DeliveryInfo): string {
  const what = d.type ?? 'unknown event';
  if (!d.verified) return `  ↳ webhook ${what}  REJECTED (${d.error ?? d.reception}, answered ${d.httpStatus})`;
  const extra = d.duplicate ? '  duplicate, ignored' : d.outOfOrder ? `  arrived late; status stays ${d.status}` : `  status ${d.status ?? '—'}`;
  return `  ↳ webhook ${what.padEnd(21)}  signature verified  event ${d.id}${extra}`;
}
