// The --from/--to pair: optional on the lists (windowFilter), required for the finance
// commands (windowFlags, asked for at a prompt when a person is there), checked before any request.
import type { Context } from '../context.js';
import { parseDateArg, parseWindow, type Window } from './dates.js';
import { missingFlags, promptContext } from './values.js';

/** An optional --from/--to pair as RFC 3339 filter values, checked before any request. */
export function windowFilter(opts: { from?: string | undefined; to?: string | undefined }): { from?: string; to?: string } {
  const from = opts.from !== undefined ? parseDateArg(opts.from, 'start', '--from') : undefined;
  const to = opts.to !== undefined ? parseDateArg(opts.to, 'end', '--to') : undefined;
  // Both given: in order, as a finance command's window must be.
  if (opts.from !== undefined && opts.to !== undefined) parseWindow(opts.from, opts.to);
  return { ...(from ? { from: from.toISOString() } : {}), ...(to ? { to: to.toISOString() } : {}) };
}

const HINT = 'give a day (YYYY-MM-DD, UTC, inclusive) or an RFC 3339 date-time';

export async function windowFlags(opts: { from?: string; to?: string }, ctx: Pick<Context, 'io' | 'prompts'>): Promise<Window> {
  // A given flag is checked before anything is asked.
  if (opts.from !== undefined) parseDateArg(opts.from, 'start', '--from');
  if (opts.to !== undefined) parseDateArg(opts.to, 'end', '--to');
  const missing = [...(opts.from === undefined ? ['--from'] : []), ...(opts.to === undefined ? ['--to'] : [])];
  if (missing.length > 0 && !ctx.io.canPrompt()) throw missingFlags(missing, HINT);
  const ask = async (flag: '--from' | '--to', edge: 'start' | 'end'): Promise<string> => {
    const { input } = await ctx.prompts();
    const validate = (value: string): true | string => {
      try {
        parseDateArg(value, edge, flag);
        return true;
      } catch (err) {
        return (err as Error).message;
      }
    };
    return input({ message: `${flag} (YYYY-MM-DD or RFC 3339):`, validate }, promptContext(ctx.io));
  };
  const from = opts.from ?? (await ask('--from', 'start'));
  const to = opts.to ?? (await ask('--to', 'end'));
  return parseWindow(from, to);
}
