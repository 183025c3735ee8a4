// The production rules, in plain functions over the context's dependencies: a change on a
// production profile is confirmed (or --yes), and sandbox-only operations are refused there
// before any request.
import type { Context } from '../context.js';
import { Declined, ProductionGuard } from '../errors.js';

/**
 * Asks before a change on a production profile (or whenever `always`); --yes skips. A No
 * ends the run (exit 0) saying `declined`, what did not happen ("… not cancelled"). The
 * answer offered is No on production, else `yes` (a summary the user just built).
 */
export async function confirm(
  ctx: Pick<Context, 'globals' | 'io' | 'settings' | 'prompts'>,
  question: string,
  declined: string,
  opts: { always?: boolean; yes?: boolean } = {},
): Promise<void> {
  if (ctx.globals.yes) return;
  const s = await ctx.settings();
  const production = s.env === 'production';
  if (!production && !opts.always) return;
  const where = production ? ` on PRODUCTION (profile ${s.profileName})` : '';
  if (!ctx.io.canPrompt()) {
    throw new ProductionGuard(`refusing to ${question}${where} without confirmation; nothing was sent`, 'pass --yes to confirm');
  }
  const prompts = await ctx.prompts();
  const ok = await prompts.confirm({ message: `${question}${where}?`, default: !production && opts.yes === true }, { input: ctx.io.stdin, output: ctx.io.stderr });
  if (!ok) throw new Declined(declined);
}

/** Refuses sandbox-only operations on a production profile, before any request. */
export async function refuseProduction(ctx: Pick<Context, 'settings'>, what: string): Promise<void> {
  const s = await ctx.settings();
  if (s.env === 'production') {
    throw new ProductionGuard(`${what} is staging-only and profile "${s.profileName}" is production; nothing was sent`, 'use a staging or local profile (--profile NAME)');
  }
}
