// The quotes this CLI made, remembered for `tx create --quote ID` (docs/transactions.md,
// "Quote mode"). The spec offers no read of a quote, yet a quote fixes the token and the
// network: without memory, `tx create --quote` would ask for a network the quote already
// chose, and could not see a --network or --token that contradicts it. Never a key.
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeAside } from '../fs/atomic.js';
import * as z from 'zod/mini';
import { distrust, ensurePrivateDirectory } from '../fs/private.js';

const RememberedQuote = z.object({ quote_id: z.string(), crypto_currency: z.string(), network: z.string(), expires_at: z.string(), base_url: z.string() });
export type RememberedQuote = z.infer<typeof RememberedQuote>;

/** Quotes are valid 120 s; one kept an hour past its expiry can still be named in the refusal. */
const KEEP_AFTER_EXPIRY_MS = 3_600_000;
/** Enough for any working session; the oldest go first. */
const MAX_KEPT = 200;

/** Beside the config file (config/file.ts is loaded only here: it brings `conf`, which a run with a key in the environment never needs). */
async function quotesPath(env: NodeJS.ProcessEnv): Promise<string> {
  const { configPath } = await import('../config/file.js');
  return join(dirname(configPath(env)), 'quotes.json');
}

/** The remembered quotes; none when the file is missing, damaged, or not the user's alone. */
async function readAll(env: NodeJS.ProcessEnv): Promise<RememberedQuote[]> {
  const path = await quotesPath(env);
  try {
    if (distrust(path, await stat(path), 'file')) return [];
    const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
    return Array.isArray(parsed) ? parsed.filter((q): q is RememberedQuote => RememberedQuote.safeParse(q).success) : [];
  } catch {
    return [];
  }
}

/** Remembers `quote`, forgetting those long expired. A failure to write is told, never fatal: the quote itself was made. */
export async function rememberQuote(env: NodeJS.ProcessEnv, quote: RememberedQuote, now: Date, warn: (line: string) => void): Promise<void> {
  const path = await quotesPath(env);
  try {
    const kept = (await readAll(env)).filter((q) => q.quote_id !== quote.quote_id && Date.parse(q.expires_at) + KEEP_AFTER_EXPIRY_MS > now.getTime());
    await ensurePrivateDirectory(dirname(path));
    await writeAside(path, `${JSON.stringify([...kept, quote].slice(-MAX_KEPT))}\n`, 0o600);
  } catch (err) {
    warn(`warning: could not remember the quote in ${path} (${(err as Error).message}); \`tx create --quote\` will need --network`);
  }
}

/** The quote with this id that this CLI made against the same service, if it remembers one. */
export async function recallQuote(env: NodeJS.ProcessEnv, baseUrl: string, quoteId: string): Promise<RememberedQuote | undefined> {
  const id = quoteId.toLowerCase();
  return (await readAll(env)).find((q) => q.quote_id.toLowerCase() === id && q.base_url === baseUrl);
}
