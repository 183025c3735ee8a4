// offramp profile show: secrets masked, and the service's choices the profile records (`offramp conform --save`).
import { Argument, Command } from '@commander-js/extra-typings';
import { DEFAULT_DELIVERED_STATUS, DEFAULT_FAILED_STATUS, FILTERS, keyStorage, maskSecret, storedProfile, type Profile, type ServiceChoices } from '../../lib/config/profile.js';
import { displayUrl } from '../../lib/client/url.js';
import type { Context } from '../../lib/context.js';
import { profileInUse } from '../../lib/config/in-use.js';
import { UsageError } from '../../lib/errors.js';
import { renderRecord } from '../../lib/output/render.js';
import { writeJson } from '../../lib/output/json.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { examples, withArguments, type OptionsOf } from '../command.js';

export const command = () =>
  withArguments(new Command('show'), new Argument('[name]', 'profile (default: current)'))
    .description('show a profile (keys masked)')
    .addHelpText('after', examples('offramp profile show', 'offramp profile show staging --json'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const file = await ctx.config();
  const data = file.read();
  const name = opts.name ?? (await profileInUse(ctx)).name;
  if (name === undefined) throw new UsageError('no current profile', 'list them with: offramp profile list');
  const profile = storedProfile(data, name);
  const view = { ...maskedView(name, profile, data.current), config_path: file.path, service: profile.service ?? {} };
  if (resolveFormat(ctx.globals, formatsOf('profile show')) === 'json') return writeJson(ctx.io, view);
  renderRecord(ctx.io, [
    {
      fields: [
        ['name', `${view.name}${view.current ? ' (current)' : ''}`],
        ['env', view.env === 'production' ? 'production  (confirmations on; simulate refused)' : view.env],
        ['base url', view.base_url],
        ['api key', view.api_key_in === 'file' ? `${view.api_key}  (in the config file)` : view.api_key_in === 'command' ? `printed by: ${view.api_key_command}` : view.api_key_in === 'keychain' ? 'in the system keychain' : '—'],
        ['webhook secret', view.webhook_secret],
        ['config', view.config_path],
      ],
    },
    { title: 'Service choices (offramp conform --save)', fields: serviceFields(view.service) },
  ]);
}

/**
 * A profile as list and show print it: secrets masked, the base URL without credentials,
 * where the key lives, and the command that prints it if one does (never the key of the
 * keychain or a command: not even read).
 */
export function maskedView(name: string, p: Profile, current: string | undefined) {
  return {
    name,
    current: name === current,
    env: p.env,
    base_url: displayUrl(p.baseUrl),
    api_key: p.apiKey && !p.keychainAccount && !p.apiKeyCommand ? maskSecret(p.apiKey) : null,
    api_key_in: keyStorage(p),
    /** The command that prints the key: what it runs, not a key. */
    api_key_command: p.apiKeyCommand ?? null,
    webhook_secret: p.webhookSecret ? maskSecret(p.webhookSecret) : null,
  };
}

/** The choices a profile does not record are the emulator's, which the CLI assumes: the defaults are shown too. */
function serviceFields(service: ServiceChoices): [string, string][] {
  const fields: [string, string][] = [];
  for (const list of Object.keys(FILTERS) as (keyof typeof FILTERS)[]) {
    const names = (service.filterNames?.[list] ?? {}) as Record<string, string | undefined>;
    const renamed = FILTERS[list].filter((f) => names[f] && names[f] !== f).map((f) => `${f} → ${names[f]}`);
    // One renamed filter a line, so the section stays inside 80 columns.
    if (renamed.length === 0) fields.push([`${list} filters`, "the CLI's names"]);
    else renamed.forEach((r, i) => fields.push([i === 0 ? `${list} filters` : '', r]));
  }
  fields.push(['failed status', service.failedStatus ?? `${DEFAULT_FAILED_STATUS} (default)`]);
  fields.push(['delivered status', service.deliveredStatus ?? `${DEFAULT_DELIVERED_STATUS} (default)`]);
  fields.push(['signature scheme', service.signatureScheme ?? 'any of the catalogue (default)']);
  return fields;
}
