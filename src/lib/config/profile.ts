// Profiles and where a call's settings come from. Pure: no file access here, so the
// precedence rules (flag > env > profile) are tested without a config file.
import { AuthError, UsageError } from '../errors.js';
import { displayUrl, httpUrl, refusePlainHttp } from '../client/url.js';
import { BASE_PATH, type DeliveryStatus } from '../vocabulary.js';
import { EMULATOR_DEFAULT_ORIGIN } from '../emulator-defaults.js';

export const ENVIRONMENTS = ['staging', 'production', 'local'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Default base URL of a `local` profile: `offramp emulator`'s default port. */
export const LOCAL_BASE_URL = `${EMULATOR_DEFAULT_ORIGIN}${BASE_PATH}`;

/** What a service chose on the spec's open points (docs/api.md); empty means the emulator's; `conform --save` fills it. */
export type ServiceChoices = {
  /** Query parameter name the service reads for each of the CLI's filters, per list. */
  filterNames?: { [L in FilteredList]?: Partial<Record<FilterName<L>, string>> };
  /** delivery_status of an event whose delivery failed: what `webhooks replay --failed` picks. */
  failedStatus?: string;
  /** delivery_status of an event the partner's endpoint accepted (reconcile). */
  deliveredStatus?: string;
  /** Pin one webhook signature scheme of the catalogue (src/lib/webhooks/signature.ts); default: any. */
  signatureScheme?: string;
};

/** The CLI's own names for the filters of each list: the records' field names. */
export const FILTERS = {
  transactions: ['status', 'from', 'to'],
  webhooks: ['transaction_id', 'event_type', 'delivery_status', 'from', 'to'],
  revenue: ['crypto_currency', 'network'],
} as const;
export type FilteredList = keyof typeof FILTERS;
export type FilterName<L extends FilteredList> = (typeof FILTERS)[L][number];

/** The delivery_status `--failed` means unless the profile says otherwise (the emulator's). */
export const DEFAULT_FAILED_STATUS: DeliveryStatus = 'failed';
/** The delivery_status of a delivered event unless the profile says otherwise (the emulator's). */
export const DEFAULT_DELIVERED_STATUS: DeliveryStatus = 'delivered';
/** The emulator's word for an event not yet delivered (waiting for its first try or a retry). */
export const PENDING_STATUS: DeliveryStatus = 'pending';

export type Profile = {
  env: Environment;
  baseUrl: string;
  /** The key itself, in the file (--insecure-storage, no credential store, or an older profile). */
  apiKey?: string;
  /** The key is in the system keychain under this account (src/lib/config/keys.ts). */
  keychainAccount?: string;
  /** The key is what this command prints, run when a request needs it. */
  apiKeyCommand?: string;
  webhookSecret?: string;
  service?: ServiceChoices;
};

export type ConfigData = { current?: string; profiles: Record<string, Profile> };

export type SettingSources = {
  flags: { profile?: string; apiKey?: string; baseUrl?: string };
  env: NodeJS.ProcessEnv;
};

/** Everything a request needs, with where each part came from. */
export type Resolved = {
  profileName?: string;
  env: Environment | 'unknown';
  baseUrl: string;
  apiKey: string;
  /** Where the key came from: a flag, the environment, or where the profile keeps it. */
  keyFrom: 'flag' | 'environment' | Exclude<KeyStorage, 'none'>;
  webhookSecret?: string;
  service: ServiceChoices;
};

export type KeyStorage = 'keychain' | 'command' | 'file' | 'none';

/** Where a stored profile's key lives (docs/configuration.md, "Where keys live"). */
export function keyStorage(profile: Profile): KeyStorage {
  if (profile.apiKeyCommand) return 'command';
  if (profile.keychainAccount) return 'keychain';
  return profile.apiKey ? 'file' : 'none';
}

/** Whether a command needs to read the config file at all for these flags and env. */
export function needsConfig(src: SettingSources): boolean {
  const named = src.flags.profile ?? src.env.OFFRAMP_PROFILE;
  const key = src.flags.apiKey ?? src.env.OFFRAMP_API_KEY;
  const base = src.flags.baseUrl ?? src.env.OFFRAMP_BASE_URL;
  return Boolean(named) || !key || !base;
}

/** The stored profile `name`; a name none has is refused, naming those there are. */
export function storedProfile(data: ConfigData, name: string): Profile {
  const profile = data.profiles[name];
  if (profile) return profile;
  const known = Object.keys(data.profiles);
  throw new UsageError(`no profile named "${name}"`, known.length ? `known profiles: ${known.join(', ')}` : 'add one with: offramp profile add NAME --env local|staging|production');
}

export function profileNameFor(src: SettingSources, config: ConfigData | undefined): string | undefined {
  return src.flags.profile ?? (src.env.OFFRAMP_PROFILE || undefined) ?? config?.current;
}

/** The profile in use (profileNameFor), as stored; a name given that none has is refused. */
export function profileOf(src: SettingSources, config: ConfigData | undefined): { name: string | undefined; profile: Profile | undefined } {
  const name = profileNameFor(src, config);
  // A name given (--profile, OFFRAMP_PROFILE) must be stored; a current one that is gone is none.
  const given = Boolean(src.flags.profile || src.env.OFFRAMP_PROFILE);
  return { name, profile: name && config ? (given ? storedProfile(config, name) : config.profiles[name]) : undefined };
}

export function resolveSettings(src: SettingSources, config: ConfigData | undefined): Resolved {
  const { name, profile } = profileOf(src, config);
  const baseUrl = src.flags.baseUrl ?? (src.env.OFFRAMP_BASE_URL || undefined) ?? profile?.baseUrl;
  const apiKey = src.flags.apiKey ?? (src.env.OFFRAMP_API_KEY || undefined) ?? profile?.apiKey;
  if (!baseUrl) {
    throw new UsageError('no base URL: no profile is set up', 'run `offramp profile add NAME --env local` (or staging), or set OFFRAMP_BASE_URL');
  }
  checkBaseUrl(baseUrl, src.env);
  if (!apiKey) {
    throw new AuthError(
      name ? `profile "${name}" has no API key` : 'no API key',
      'set OFFRAMP_API_KEY, or store one with `offramp profile add NAME --api-key-stdin`',
    );
  }
  // A header value cannot hold a line break: sent, it fails as a network error after every
  // retry; said here, the user knows what to fix.
  if (/[\x00-\x1f\x7f]/.test(apiKey)) {
    throw new AuthError(
      'the API key contains a line break or another control character',
      'store it again without one: printf %s "$KEY" | offramp profile add NAME --api-key-stdin --force (or fix OFFRAMP_API_KEY)',
    );
  }
  const webhookSecret = src.env.OFFRAMP_WEBHOOK_SECRET || profile?.webhookSecret;
  // Neither flag nor variable: the key is the profile's, so it keeps one somewhere.
  const stored = profile ? keyStorage(profile) : 'none';
  return {
    ...(name && profile ? { profileName: name } : {}),
    env: profile?.env ?? 'unknown',
    baseUrl,
    apiKey,
    keyFrom: src.flags.apiKey ? 'flag' : src.env.OFFRAMP_API_KEY ? 'environment' : stored === 'none' ? 'file' : stored,
    ...(webhookSecret ? { webhookSecret } : {}),
    service: profile?.service ?? {},
  };
}

/**
 * A base URL the CLI will send a key to, wherever it came from (flag, environment,
 * profile): http(s); https unless plainHttpAllowed says otherwise (the key would cross the
 * network in clear); a path ending in /api/v1/partner (anything else answers every call with 404).
 * A refusal suggests the URL that was probably meant.
 */
export function checkBaseUrl(value: string, env: NodeJS.ProcessEnv): URL {
  const url = httpUrl(value, 'base URL', `https://host${BASE_PATH}`);
  refusePlainHttp(url, env, 'API key');
  const shown = displayUrl(url.toString());
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(BASE_PATH)) {
    const fixed = new URL(url);
    const at = path.indexOf(BASE_PATH);
    fixed.pathname = at >= 0 ? path.slice(0, at + BASE_PATH.length) : `${path}${BASE_PATH}`;
    fixed.search = '';
    throw new UsageError(`base URL ${shown} does not end in ${BASE_PATH}`, `did you mean ${displayUrl(fixed.toString())}?`);
  }
  return url;
}

/** `sk_live_abcdef123456` → `sk_…3456`: enough to tell keys apart, never enough to use one. */
export function maskSecret(secret: string | undefined): string {
  if (!secret) return '—';
  if (secret.length <= 8) return '…' + '*'.repeat(Math.min(4, secret.length));
  const prefix = /^[a-z]+_/i.exec(secret)?.[0] ?? '';
  return `${prefix}…${secret.slice(-4)}`;
}

/** A name `profile add` accepts: the only names completion offers, whatever the file holds. */
export function isProfileName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name);
}

export function validateProfileName(name: string): string {
  if (!isProfileName(name)) {
    throw new UsageError(`"${name}" is not a valid profile name (letters, digits, ".", "_", "-"; at most 64)`);
  }
  return name;
}
