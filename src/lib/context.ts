// One context, built once in `main` and handed to every command: IO, the clock, the
// global flags, and lazy access to the config file, the resolved settings and the HTTP
// clients (one factory, so every request of a run keeps the same rules). Nothing
// expensive is loaded until a command asks for it, so `--help` and `--version` never pay
// for undici, zod, conf or the prompts.
import type { Api } from './client/api.js';
import type { HttpClient, HttpOptions } from './client/http.js';
import type { ConfigFile } from './config/file.js';
import type { Resolved } from './config/profile.js';
import type { IO } from './io.js';
import { SECRET_VARIABLES } from './config/secret-variables.js';

export type Globals = {
  profile?: string;
  apiKey?: string;
  baseUrl?: string;
  json?: boolean;
  /** --jq was given: what stdout gets is jq's, even with -o ndjson (then json is false). */
  jq?: boolean;
  output?: string;
  timeout: number;
  /** Whether --timeout was given (tx watch reads it as its overall deadline). */
  timeoutGiven: boolean;
  retries: number;
  verbose: boolean;
  yes: boolean;
  /** false with --no-input */
  input: boolean;
};

export type Prompts = typeof import('@inquirer/prompts');

/**
 * Where a client of `Context.httpClient` sends, and as what. `maxResponseBytes`: answers up
 * to this size are read whatever OFFRAMP_MAX_RESPONSE_BYTES says (the emulator's state
 * document); `retries`: instead of --retries (0 for a caller that tries again on its own).
 */
export type ClientFor = Pick<HttpOptions, 'baseUrl' | 'apiKey' | 'headers'> &
  Partial<Pick<HttpOptions, 'maxResponseBytes' | 'retries'>> & {
    /** Said in the user agent after the version: `conform`, `demo`. */
    purpose?: string;
    /** Direct whatever the proxy variables say: an emulator, not the service. */
    direct?: boolean;
  };

export type Context = {
  io: IO;
  env: NodeJS.ProcessEnv;
  globals: Globals;
  version: string;
  now(): Date;
  sleep(ms: number): Promise<void>;
  /** Stops a command that runs until interrupted (webhooks listen, emulator) as Ctrl-C does: for a run in process. */
  signal?: AbortSignal;
  config(): Promise<ConfigFile>;
  settings(): Promise<Resolved>;
  api(): Promise<Api>;
  /** An HTTP client under the run's rules (--timeout, --retries, the answer cap, the trace), closed with the context. */
  httpClient(to: ClientFor): Promise<HttpClient>;
  prompts(): Promise<Prompts>;
  close(): Promise<void>;
};

export type ContextDeps = Pick<Context, 'io' | 'env' | 'globals' | 'version' | 'signal'> &
  Partial<Pick<Context, 'now' | 'sleep'>> & {
    /** Backoff base for retries; tests make it small. */
    backoffBaseMs?: number;
  };

export function createContext(deps: ContextDeps): Context {
  const { io, env, globals } = deps;
  let configFile: Promise<ConfigFile> | undefined;
  let settings: Promise<Resolved> | undefined;
  let api: Promise<Api> | undefined;
  const clients: HttpClient[] = [];
  io.addSecret(globals.apiKey);
  for (const name of SECRET_VARIABLES) io.addSecret(env[name]);

  const ctx: Context = {
    io,
    env,
    globals,
    version: deps.version,
    now: deps.now ?? (() => new Date()),
    sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    ...(deps.signal ? { signal: deps.signal } : {}),

    config() {
      configFile ??= import('./config/file.js').then(({ ConfigFile }) => new ConfigFile(env, (line) => io.err(line)));
      return configFile;
    },

    settings() {
      settings ??= (async () => {
        const [{ needsConfig, profileNameFor, resolveSettings }, { withStoredKey }] = await Promise.all([import('./config/profile.js'), import('./config/keys.js')]);
        const sources = { flags: { profile: globals.profile, apiKey: globals.apiKey, baseUrl: globals.baseUrl }, env };
        const stored = needsConfig(sources) ? (await ctx.config()).read() : undefined;
        // A key in the keychain or behind a command is fetched only now, for the profile in use.
        const data = await withStoredKey(sources, stored, profileNameFor(sources, stored));
        const resolved = resolveSettings(sources, data);
        io.addSecret(resolved.apiKey);
        io.addSecret(resolved.webhookSecret);
        return resolved;
      })();
      return settings;
    },

    api() {
      api ??= (async () => {
        const s = await ctx.settings();
        const [http, { createApi }] = await Promise.all([ctx.httpClient({ baseUrl: s.baseUrl, apiKey: s.apiKey }), import('./client/api.js')]);
        return createApi(http, { service: s.service, onIgnoredFilter: (message) => io.err(`warning: ${message}`) });
      })();
      return api;
    },

    async httpClient(to) {
      const [{ HttpClient }, { maxResponseBytes }] = await Promise.all([import('./client/http.js'), import('./client/transport.js')]);
      const http = new HttpClient({
        baseUrl: to.baseUrl,
        ...(to.apiKey !== undefined ? { apiKey: to.apiKey } : {}),
        ...(to.headers ? { headers: to.headers } : {}),
        userAgent: `offramp-cli/${deps.version} node/${process.versions.node}${to.purpose ? ` (${to.purpose})` : ''}`,
        timeoutMs: globals.timeout,
        retries: to.retries ?? globals.retries,
        ...(to.direct ? {} : { env }),
        maxResponseBytes: Math.max(to.maxResponseBytes ?? 0, maxResponseBytes(env)),
        fullMessages: globals.verbose,
        warn: (line) => io.err(`warning: ${line}`),
        ...(deps.backoffBaseMs !== undefined ? { backoffBaseMs: deps.backoffBaseMs } : {}),
        // A test's fake clock waits out retries too; a real run keeps the client's abortable timer.
        ...(deps.sleep ? { sleep: deps.sleep } : {}),
        ...(globals.verbose ? { trace: (line: string) => io.err(line) } : {}),
      });
      clients.push(http);
      return http;
    },

    async prompts() {
      const [prompts, { safePrompts }] = await Promise.all([import('@inquirer/prompts'), import('./output/prompts.js')]);
      return safePrompts(prompts);
    },

    async close() {
      await Promise.all(clients.splice(0).map((c) => c.close()));
    },
  };
  return ctx;
}
