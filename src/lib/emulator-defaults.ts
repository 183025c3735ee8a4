// The emulator's documented defaults (docs/emulator.md): its key and webhook secret (public
// test values), the port `offramp emulator` listens on, the largest state it takes back, the names it
// answers, the shape of a listener's registration. Here, below both, because the emulator
// answers to them and the CLI relies on them: so the published emulator never loads the
// CLI's config, and the two cannot drift apart.

export const EMULATOR_DEFAULT_API_KEY = 'sk_test_emulator';
export const EMULATOR_DEFAULT_WEBHOOK_SECRET = 'whsec_test_emulator';
/** `offramp emulator`'s port when --port is not given (a `local` profile's, the OpenAPI document's server); programmatic use takes a free one. */
export const EMULATOR_DEFAULT_PORT = 4010;
/** Where `offramp emulator` listens when given no --port or --host. */
export const EMULATOR_DEFAULT_ORIGIN = `http://127.0.0.1:${EMULATOR_DEFAULT_PORT}`;
/** Names the emulator answers besides its loopback ones, comma-separated (docs/emulator.md, "Who it answers"). */
export const ALLOWED_HOSTS_ENV = 'OFFRAMP_EMULATOR_ALLOWED_HOSTS';
/** A whole state sent to `PUT state`: the largest seeded ledger fits. */
export const STATE_BODY_LIMIT = 512 * 1024 * 1024;

/** Which listener set the webhook URL and the URL it found (docs/emulator.md, "Control plane"): what the next one puts back after a crash. */
export type Registration = { pid: number; command: string; previous_url: string | null };
