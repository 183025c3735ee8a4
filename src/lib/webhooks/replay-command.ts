// The exact `offramp webhooks replay …` command that redelivers some events, as reconcile
// and a partial replay print it. It names the profile when the user chose one with
// --profile (OFFRAMP_PROFILE is inherited by the shell anyway); never a key or a URL.
import type { Globals } from '../context.js';
import { shellQuote } from '../input/values.js';

export function replayCommand(globals: Pick<Globals, 'profile'>, eventIds: readonly string[]): string {
  const profile = globals.profile ? ` --profile ${shellQuote(globals.profile)}` : '';
  return `offramp${profile} webhooks replay ${eventIds.join(' ')}`;
}
