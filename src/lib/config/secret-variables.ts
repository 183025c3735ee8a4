// The environment variables that carry a secret, in one place: the context registers each
// value for redaction, each has a `NAME_FILE` form (secret-files.ts), and each is what a
// secret flag's warning points to (src/commands/globals.ts). It loads nothing: the startup
// path reads it.

/**
 * The environment variable that carries the control plane's admin token, for the server
 * (`offramp emulator`) and its control subcommands alike: a flag is visible to other local
 * users in the process list.
 */
export const ADMIN_TOKEN_ENV = 'OFFRAMP_EMULATOR_ADMIN_TOKEN';

export const SECRET_VARIABLES = ['OFFRAMP_API_KEY', 'OFFRAMP_WEBHOOK_SECRET', ADMIN_TOKEN_ENV] as const;

export type SecretVariable = (typeof SECRET_VARIABLES)[number];
