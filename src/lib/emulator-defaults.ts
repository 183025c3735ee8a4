// The emulator's documented defaults (docs/emulator.md): its key and webhook secret (public
// test values), the largest state it takes back, and the shape of a listener's registration. Here, below both, because the emulator
// answers to them and the CLI relies on them: so the published emulator never loads the
// CLI's config, and the two cannot drift apart.

export const EMULATOR_DEFAULT_API_KEY = 'sk_test_emulator';
export const EMULATOR_DEFAULT_WEBHOOK_SECRET = 'whsec_test_emulator';
/** A whole state sent to `PUT state`: the largest seeded ledger fits. */
export const STATE_BODY_LIMIT = 512 * 1024 * 1024;

/** Which listener set the webhook URL and the URL it found (docs/emulator.md, "Control plane"): what the next one puts back after a crash. */
export type Registration = { pid: number; command: string; previous_url: string | null };
