// offramp emulator wait [--timeout DURATION]: exits 0 as soon as the emulator behind the profile
// (or --base-url) answers its health check, and prints its base URL; the way a CI job
// waits for an emulator started in the background, instead of sleeping. A refused
// connection is "not up yet" and is tried again; an answer that says no (a wrong admin
// token, something that is not an emulator) ends the wait at once.
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { NetworkError, TimeoutError } from '../../lib/errors.js';
import { examples, type OptionsOf } from '../command.js';
import { callControl, controlTarget, type ControlFlags } from './control-client.js';

export const command = () =>
  new Command<[], {}, ControlFlags>('wait')
    .description('exit 0 as soon as the emulator answers (--timeout bounds the wait: 15s, 2m); prints its base URL')
    .addHelpText(
      'after',
      examples('offramp emulator wait --timeout 15s', 'OFFRAMP_BASE_URL=$(offramp emulator wait --base-url http://127.0.0.1:4010/api/v1/partner)'),
    );

/** Between two tries: short, so the wait ends soon after the emulator is up. */
const PAUSE_MS = 50;
/** One try never takes longer than this, so a hung connect is retried. */
const TRY_TIMEOUT_MS = 2000;

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const target = await controlTarget(ctx, opts.adminToken);
  const budget = ctx.globals.timeout;
  const deadline = performance.now() + budget;
  let last: Error | undefined;
  for (;;) {
    const left = deadline - performance.now();
    if (left <= 0) break;
    try {
      const answer = await callControl(ctx, target, { method: 'GET', path: '/health', timeoutMs: Math.max(1, Math.min(TRY_TIMEOUT_MS, left)) });
      const url = (answer.data as { url?: string } | undefined)?.url;
      ctx.io.print(url ?? target.origin);
      return;
    } catch (err) {
      if (!(err instanceof NetworkError || err instanceof TimeoutError)) throw err;
      last = err;
    }
    await ctx.sleep(Math.min(PAUSE_MS, Math.max(0, deadline - performance.now())));
  }
  throw new TimeoutError(
    `the emulator at ${target.origin} did not answer within ${budget} ms${last ? ` (last: ${last.message})` : ''}`,
    'start it first (offramp emulator --ready-file FILE &), or give it longer with --timeout (e.g. --timeout 1m)',
  );
}
