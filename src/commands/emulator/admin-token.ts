// The environment variable that carries the control plane's admin token, for the server
// (`offramp emulator`) and its control subcommands alike. An environment variable rather
// than only a flag: a flag is visible to other local users in the process list.
export const ADMIN_TOKEN_ENV = 'OFFRAMP_EMULATOR_ADMIN_TOKEN';
