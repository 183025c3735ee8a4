// offramp doctor: one line per check (pass / warn / fail), exit 8 when any check fails.
import { statSync } from 'node:fs';
import { Command } from '@commander-js/extra-typings';
import type { Resolved } from '../lib/config/profile.js';
import type { Context } from '../lib/context.js';
import { formatsOf, resolveFormat } from '../lib/output/format.js';
import { CheckFailed, CliError } from '../lib/errors.js';
import { chalkFor } from '../lib/output/render.js';
import { paint } from '../lib/output/sanitize.js';
import { writeJson } from '../lib/output/json.js';
import { examples, type OptionsOf } from './command.js';

export const command = () =>
  new Command('doctor')
    .description('check Node, config, profile, reachability, key and clock')
    .addHelpText('after', examples('offramp doctor', 'offramp doctor --profile staging --json'));

export type Check = { name: string; status: 'pass' | 'warn' | 'fail'; detail: string };

/** Beyond this much difference from the service's clock, times in tables and windows mislead. */
const SKEW_WARN_MS = 5_000;

export async function run(_opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  resolveFormat(ctx.globals, formatsOf('doctor'));
  const checks: Check[] = [];
  const add = (name: string, status: Check['status'], detail: string) => checks.push({ name, status, detail });

  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  add('node', major > 20 || (major === 20 && minor >= 19) ? 'pass' : 'fail', `v${process.versions.node} (needs >= 20.19)`);

  // The mode as found, before opening the config file puts a too-open one right (with a warning).
  const path = (await import('../lib/config/file.js')).configPath(ctx.env);
  let mode: number | undefined;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    // Nothing stored, nothing exposed: the check is about the file's permissions.
  }
  try {
    await ctx.config();
    if (mode === undefined) add('config file', 'pass', `${path} not created yet (no profiles; offramp profile add creates it)`);
    else add('config file', mode === 0o600 ? 'pass' : 'warn', `${path} (mode ${mode.toString(8).padStart(4, '0')}${mode === 0o600 ? '' : ', was too open: now 0600'})`);
  } catch (err) {
    add('config file', 'fail', withHint(err));
    return finish(ctx, checks);
  }

  let settings;
  try {
    settings = await ctx.settings();
    add('profile', 'pass', settings.profileName ? `${settings.profileName} (${settings.env})` : 'none; key and base URL from flags or environment');
    add('key storage', ...(settings.keyFrom === 'file' && settings.env === 'local' ? (['pass', 'file (the config file; a local profile)'] as const) : KEY_FROM[settings.keyFrom]));
  } catch (err) {
    add('profile', 'fail', withHint(err));
    return finish(ctx, checks);
  }

  const url = new URL(settings.baseUrl);
  const { plainHttpAllowed, displayUrl, ALLOW_HTTP_HOSTS_ENV } = await import('../lib/client/url.js');
  const shown = displayUrl(settings.baseUrl);
  const allowed = plainHttpAllowed(url, ctx.env);
  if (allowed === 'https') add('base url', 'pass', shown);
  else if (allowed === 'loopback') add('base url', 'pass', `${shown} (loopback)`);
  else if (allowed === 'named') add('base url', 'warn', `${shown}: plain http, allowed by ${ALLOW_HTTP_HOSTS_ENV}`);
  else add('base url', 'fail', `${shown} is plain http: the key would cross the network in clear`);
  if (!url.pathname.replace(/\/+$/, '').endsWith('/api/v1/partner')) add('base url path', 'warn', 'does not end in /api/v1/partner');

  // Node's switch for every certificate check: offramp states its own, other Node programs obey
  // it (docs/configuration.md, "Certificates").
  if (ctx.env.NODE_TLS_REJECT_UNAUTHORIZED === '0') {
    add('certificates', 'warn', 'NODE_TLS_REJECT_UNAUTHORIZED=0 is set: offramp still checks certificates, but other Node programs here accept any certificate; unset it, and trust a private CA with NODE_EXTRA_CA_CERTS');
  }

  await checkNetwork(ctx, url, add);

  // A local profile needs none: listen and verify use the emulator's public default secret.
  add('webhook secret', settings.webhookSecret || settings.env === 'local' ? 'pass' : 'warn', settings.webhookSecret ? 'set' : settings.env === 'local' ? "the emulator's default (local profile; webhooks listen/verify use it)" : 'not set (needed by webhooks listen/verify): profile add --webhook-secret-stdin or OFFRAMP_WEBHOOK_SECRET');
  return finish(ctx, checks);
}

/** Where the key in use came from (never the key); a key in the file of a real service (not a local profile's) is a warning. */
const KEY_FROM: Record<Resolved['keyFrom'], readonly [Check['status'], string]> = {
  flag: ['warn', '--api-key (visible to other processes: prefer OFFRAMP_API_KEY or OFFRAMP_API_KEY_FILE)'],
  environment: ['pass', 'environment (OFFRAMP_API_KEY or OFFRAMP_API_KEY_FILE)'],
  keychain: ['pass', 'keychain (the system credential store)'],
  command: ['pass', 'command (run when a request needs the key)'],
  file: ['warn', 'file (the config file, 0600): offramp profile migrate moves it to the system keychain'],
};

/** Which proxy requests take (the client's own decision), then one authenticated read through it. */
async function checkNetwork(ctx: Context, url: URL, add: (name: string, status: Check['status'], detail: string) => void): Promise<void> {
  const [{ resolveProxy }, { CertificateRefused, ProxyError }] = await Promise.all([import('../lib/client/proxy.js'), import('../lib/client/errors.js')]);
  // The same decision the client makes for each request (src/lib/client/proxy.ts).
  let proxy;
  try {
    proxy = resolveProxy(url, ctx.env);
  } catch (err) {
    // A variable the client cannot read: reported here, and nothing is sent.
    return add('proxy', 'fail', withHint(err));
  }
  if (proxy.via === 'proxy') add('proxy', 'pass', `${proxy.proxy} (from ${proxy.from})`);
  else if (proxy.via === 'bypassed') add('proxy', 'pass', `not used for ${url.hostname}: ${proxy.noProxyFrom} has ${proxy.entry} (${proxy.proxy} from ${proxy.from} otherwise)`);
  else if (proxy.unread.length === 0) add('proxy', 'pass', 'none (no proxy variable set)');
  else {
    const reads = url.protocol === 'https:' ? 'https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY' : 'http_proxy, all_proxy, ALL_PROXY';
    add('proxy', 'warn', `none: ${proxy.unread.join(', ')} set but not read for an ${url.protocol.slice(0, -1)} URL, which reads ${reads} (as curl does)`);
  }

  const api = await ctx.api();
  const started = performance.now();
  try {
    // The cheapest authenticated read: one transaction of the list.
    const res = await api.http.send({ method: 'GET', path: '/transactions', query: { limit: 1 } });
    const ms = Math.round(performance.now() - started);
    add('reachable', 'pass', `${ms} ms`);
    add('api key', 'pass', 'accepted');
    if (res.date) {
      const skew = Date.parse(res.date) - ctx.now().getTime();
      // The Date header has whole seconds, so up to a second of skew is noise.
      const secs = Math.round(skew / 1000);
      add('clock', Math.abs(skew) - 1000 > SKEW_WARN_MS ? 'warn' : 'pass', secs === 0 ? 'in step with the service' : `${Math.abs(secs)} s ${secs > 0 ? 'behind' : 'ahead of'} the service`);
    } else {
      add('clock', 'warn', 'the service sent no Date header');
    }
  } catch (err) {
    const e = err as CliError & { status?: number };
    if (e.status === 401 || e.status === 403) {
      add('reachable', 'pass', `${Math.round(performance.now() - started)} ms`);
      add('api key', 'fail', `rejected (${e.status}): ${e.message}`);
    } else {
      // Their hint is what to do about that certificate (every kind of refusal) or that proxy.
      const hinted = e instanceof CertificateRefused || e instanceof ProxyError;
      add('reachable', 'fail', `${e.message}${hinted ? ` — ${e.hint}` : ''}`);
    }
  }
}

/** An error as a check's detail: its message and, for ours, its hint. */
function withHint(err: unknown): string {
  return err instanceof CliError ? `${err.message}${err.hint ? ` — ${err.hint}` : ''}` : String(err);
}

function finish(ctx: Context, checks: Check[]): void {
  if (ctx.globals.json) writeJson(ctx.io, checks);
  else {
    const c = chalkFor(ctx.io);
    const mark = { pass: paint('✓ pass', c.green), warn: paint('! warn', c.yellow), fail: paint('✗ fail', c.red) };
    const width = Math.max(...checks.map((k) => k.name.length));
    // A detail may quote the service (an error message): print makes it terminal-safe.
    for (const k of checks) ctx.io.print([mark[k.status], `  ${k.name.padEnd(width)}  ${k.detail}`]);
  }
  const failed = checks.filter((k) => k.status === 'fail');
  if (failed.length > 0) throw new CheckFailed(`${failed.length} check${failed.length > 1 ? 's' : ''} failed: ${failed.map((k) => k.name).join(', ')}`);
}
