// offramp emulator wait: the way a CI job waits for an emulator started in the background,
// instead of sleeping. What counts as "not up yet" and what ends the wait at once are in
// docs/emulator.md ("Ready without sleeping").
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { worthAnotherTry } from '../../lib/client/http.js';
import { MAX_TIMER_MS } from '../../lib/client/transport.js';
import { TimeoutError, UsageError } from '../../lib/errors.js';
import { checkAncestry, InsecurePathError, readTrustedFile } from '../../lib/fs/private.js';
import { BASE_PATH } from '../../lib/vocabulary.js';
import { examples, type OptionsOf } from '../command.js';
import { callControl, controlTarget, type ControlFlags } from '../../lib/emulator/control-client.js';

export const command = () =>
  new Command<[], {}, ControlFlags>('wait')
    .description('exit 0 as soon as the emulator answers (--timeout bounds the wait: 15s, 2m); prints its base URL')
    .option('--ready-file <file>', 'first wait for this file (offramp emulator --ready-file), then for the URL in it')
    .addHelpText(
      'after',
      examples(
        'offramp emulator wait --timeout 15s',
        'OFFRAMP_BASE_URL=$(offramp emulator wait --base-url http://127.0.0.1:4010/api/v1/partner)',
        'offramp emulator --port 0 --ready-file emulator.url & OFFRAMP_BASE_URL=$(offramp emulator wait --ready-file emulator.url)',
      ),
    );

/** Between two tries: short, so the wait ends soon after the emulator is up. */
const PAUSE_MS = 50;
/** One try never takes longer than this (a health check answers in milliseconds), so a hung connection is retried. */
const TRY_TIMEOUT_MS = 1000;

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  if (opts.readyFile !== undefined && opts.readyFile.trim() === '') throw new UsageError('--ready-file: give a file path');
  const budget = ctx.globals.timeout;
  const deadline = performance.now() + budget;
  // Whole milliseconds: timers take nothing else.
  const left = () => Math.max(0, Math.floor(deadline - performance.now()));
  const pause = () => ctx.sleep(Math.min(PAUSE_MS, left()));

  // The wait itself keeps the process alive until the deadline: a try's own time limit does
  // not (an unref'd timer), and a try whose connection the other side closed may be left
  // waiting on nothing else, so Node would end the run midway.
  // An interval, as no timer waits longer than MAX_TIMER_MS (a longer one fires at once).
  const hold = setInterval(() => undefined, Math.min(budget, MAX_TIMER_MS));
  try {
    let base: string | undefined;
    if (opts.readyFile !== undefined) {
      base = await readyUrl(opts.readyFile, left, pause);
      if (base === undefined) {
        throw new TimeoutError(`no ready file at ${opts.readyFile} within ${budget} ms`, 'start the emulator with the same --ready-file, or give it longer with --timeout MS');
      }
    }
    // The URL in the file stands where --base-url would.
    const found = await controlTarget(base !== undefined ? { ...ctx, globals: { ...ctx.globals, baseUrl: base } } : ctx, opts.adminToken);
    // One attempt per try: the pause between tries, not the client's backoff, keeps the wait short.
    const target = { ...found, retries: 0 };
    let last: Error | undefined;
    for (let remaining = left(); remaining > 0; remaining = left()) {
      const tryMs = Math.min(TRY_TIMEOUT_MS, remaining);
      try {
        await callControl(ctx, target, { method: 'GET', path: '/health', timeoutMs: tryMs });
        // The URL this run reached, not the one the answer names: the emulator knows only the
        // address it bound (0.0.0.0 in a container), not the port mapping or service name in front.
        return ctx.io.print(target.baseUrl ?? target.origin + BASE_PATH);
      } catch (err) {
        // Not up yet is what the client itself would try again; this loop does the trying.
        if (!worthAnotherTry(err)) throw err;
        // A try the deadline cut short says less than the failure before it.
        if (!(err instanceof TimeoutError && tryMs < TRY_TIMEOUT_MS && last)) last = err as Error;
      }
      await pause();
    }
    throw new TimeoutError(
      `the emulator at ${target.origin} did not answer within ${budget} ms${last ? ` (last: ${last.message})` : ''}`,
      'start it first (offramp emulator --ready-file FILE &), or give it longer with --timeout (e.g. --timeout 1m)',
    );
  } finally {
    clearInterval(hold);
  }
}

/**
 * A ready file that holds something other than a URL is a usage error: waiting longer would
 * not change it. The admin token goes to the URL it names, so it is read only when no one else
 * could have written it (src/lib/fs/private.ts, readTrustedFile), else refused at once.
 */
async function readyUrl(file: string, left: () => number, pause: () => Promise<void>): Promise<string | undefined> {
  for (;;) {
    let text: string | undefined;
    try {
      text = readTrustedFile(file, `--ready-file ${file}`);
    } catch (err) {
      if (err instanceof InsecurePathError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new UsageError(`--ready-file ${file}: ${(err as Error).message}`);
      // Not there yet: a directory someone else could write it into is refused now, not at the deadline.
      checkAncestry(file, `--ready-file ${file}`);
    }
    if (text !== undefined) {
      const url = text.trim();
      if (!/^https?:\/\/\S+$/.test(url) || !URL.canParse(url)) throw new UsageError(`--ready-file ${file} holds "${url.slice(0, 80)}", not the emulator's URL`, 'give the file `offramp emulator --ready-file` writes');
      return url;
    }
    if (left() <= 0) return undefined;
    await pause();
  }
}

