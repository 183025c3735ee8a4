// offramp conform: what the service behind the profile chose on every point the spec leaves
// "not shown", beside what the emulator chose, and what the CLI does about each difference
// (docs/api.md, "Find out what the service chose").
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../lib/context.js';
import { formatsOf, resolveFormat } from '../lib/output/format.js';
import { CheckFailed, UsageError } from '../lib/errors.js';
import { writeJson } from '../lib/output/json.js';
import { startSpinner } from '../lib/output/spinner.js';
import type { Observation } from '../lib/conform/verdicts.js';
import { DEFAULT_STORE, storeToRead } from '../lib/webhooks/store.js';
import { examples, type OptionsOf } from './command.js';
import { storedProfile } from '../lib/config/profile.js';

export const command = () =>
  new Command('conform')
    .description("find out what the service chose where the spec says \"not shown\", beside the emulator's choice")
    .option('--store [file]', `a \`webhooks listen\` store holding deliveries of this service: its signature scheme is checked too (bare: ${DEFAULT_STORE})`)
    .option('--save', 'save what the CLI needs to know (filter names, failed status, signature scheme) into the profile')
    .option('--overlay <file>', 'also write what the service chose as an OpenAPI Overlay over `offramp openapi` (YAML; JSON for .json)')
    .addHelpText(
      'after',
      examples(
        'offramp conform --profile staging',
        'offramp conform --profile staging --save',
        'offramp conform --profile live --json',
        'offramp conform --profile staging --overlay staging.overlay.yaml',
      ),
    );

/** The key of the 401 probe: one no service issues. */
const WRONG_KEY = 'conform-invalid-key';
/** How long the target's deliveries of the walk's events get before their statuses are read. */
const DELIVERY_WAIT_MS = 500;

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  resolveFormat(ctx.globals, formatsOf('conform'));
  const { io } = ctx;
  const settings = await ctx.settings();
  // Everything that can be refused is refused before the first request.
  if (opts.save && !settings.profileName) {
    throw new UsageError(
      '--save writes into a profile, and this run uses none',
      'name one with --profile NAME (create it with `offramp profile add NAME --env staging`), or make one current',
    );
  }
  const [probes, verdicts, signatures] = await Promise.all([
    import('../lib/conform/probes.js'),
    import('../lib/conform/verdicts.js'),
    import('../lib/conform/signatures.js'),
  ]);
  let signature: Observation['signature'] = { skipped: 'no --store given' };
  if (opts.store !== undefined) {
    const store = storeToRead(opts.store, '--store', ctx.env);
    // The one rule listen verified the store with (docs/webhooks.md, "Which secret").
    const { webhookSecret } = await import('../lib/webhooks/register.js');
    signature = await signatures.storeSchemes(store.path, await webhookSecret(ctx, undefined, '--store: to check the stored signatures with'));
  }
  const overlay = opts.overlay === undefined ? undefined : await import('../lib/conform/overlay.js');
  if (overlay && opts.overlay !== undefined) await overlay.checkOverlayPath(opts.overlay);

  const client = (apiKey: string) => ctx.httpClient({ baseUrl: settings.baseUrl, apiKey, purpose: 'conform' });
  const target = await client(settings.apiKey);
  const targetWrong = await client(WRONG_KEY);
  const spinner = ctx.globals.json ? undefined : await startSpinner(io, `probing ${settings.baseUrl}`);

  let observed: Observation;
  const started = performance.now();
  try {
    observed = await probes.runProbes({
      sender: probes.createSender(target),
      wrongKey: probes.createSender(targetWrong),
      readOnly: settings.env === 'production',
      awaitDeliveries: () => ctx.sleep(DELIVERY_WAIT_MS),
      now: ctx.now,
      preferredNames: settings.service.filterNames,
    });
  } catch (err) {
    spinner?.fail();
    throw err;
  } finally {
    await Promise.allSettled([target.close(), targetWrong.close()]);
  }
  spinner?.stop();
  if (ctx.globals.verbose) io.err(`conform: probes took ${Math.round(performance.now() - started)} ms`);

  observed.signature = signature;
  let findings = verdicts.assess(observed, { service: settings.service });
  let saved: { profile: string; service: unknown; settings: string[] } | undefined;
  const needed = findings.flatMap((f) => (f.verdict === 'needs-setting' && f.setting ? [f.setting] : []));
  if (opts.save && settings.profileName && needed.length > 0) {
    // Into the profile, keeping every other choice it already had.
    const file = await ctx.config();
    const profile = storedProfile(file.read(), settings.profileName);
    const service = verdicts.applySettings(profile.service ?? {}, needed);
    file.setProfile(settings.profileName, { ...profile, service });
    saved = { profile: settings.profileName, service, settings: needed.map(verdicts.describeSetting) };
    findings = verdicts.markSaved(findings, settings.profileName);
  }
  const report = { target: settings.baseUrl, env: settings.env, findings: findings.map(verdicts.publicFinding) };

  if (ctx.globals.json) {
    writeJson(io, { ...report, ...(saved ? { saved: { profile: saved.profile, service: saved.service } } : {}) });
  } else {
    const { renderReport } = await import('../lib/conform/render.js');
    const width = io.stdoutIsTTY && (io.stdout.columns ?? 0) > 0 ? io.stdout.columns! : undefined;
    renderReport(io, { ...report, ...(saved ? { saved: { profile: saved.profile, settings: saved.settings } } : {}) }, width);
  }

  if (overlay && opts.overlay !== undefined) {
    const actions = await overlay.writeOverlay(opts.overlay, { ...report, observed });
    if (!ctx.globals.json) io.err(`conform: the overlay (${actions} action${actions === 1 ? '' : 's'}) is in ${opts.overlay}`);
  }

  const t = verdicts.tally(report.findings);
  if (!verdicts.passes(report.findings)) {
    const parts = [
      ...(t['needs-setting'] ? [`${t['needs-setting']} need${t['needs-setting'] === 1 ? 's' : ''} a profile setting`] : []),
      ...(t.unsupported ? [`${t.unsupported} ${t.unsupported === 1 ? 'is' : 'are'} unsupported`] : []),
    ];
    throw new CheckFailed(
      `conform: of ${report.findings.length} points, ${parts.join(' and ')}`,
      t['needs-setting']
        ? `run \`offramp conform${settings.profileName ? ` --profile ${settings.profileName}` : ''} --save\` to store the settings in the profile`
        : undefined,
    );
  }
}
