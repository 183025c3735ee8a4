// The emulator's documented defaults (docs/emulator.md): the partner key and the webhook
// secret it takes when given none, public test values rather than secrets. Here, below
// both, because the emulator answers to them and the CLI's config falls back on them for a
// `local` profile; so the published emulator (offramp-cli/emulator) never loads the CLI's
// config, and the two cannot drift apart.

export const EMULATOR_DEFAULT_API_KEY = 'sk_test_emulator';
export const EMULATOR_DEFAULT_WEBHOOK_SECRET = 'whsec_test_emulator';
