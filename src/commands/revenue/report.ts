// offramp revenue report (docs/finance.md, "offramp revenue report"): the rows are read through
// the export's pipeline (src/lib/revenue/rows.ts) and hashed as its CSV would be, so the SHA-256
// is the export's; ECharts (chart.ts) is loaded here only, and FILE appears whole or not at all.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { CliError, EXIT, UsageError } from '../../lib/errors.js';
import { writeAside } from '../../lib/fs/atomic.js';
import { filterFlags } from '../../lib/input/values.js';
import { windowFlags } from '../../lib/input/window.js';
import type { Grouping } from '../../lib/revenue/groups.js';
import { isLoopbackHost, publicUrl } from '../../lib/client/url.js';
import { checkZone, nothingMatched, partialPeriods, periodsIn, stillOpenNote, zonedWindow } from '../../lib/revenue/periods.js';
import { exportCommandWords } from '../../lib/revenue/resume.js';
import { groupRows } from '../../lib/revenue/rows.js';
import { examples, type OptionsOf } from '../command.js';
import { callControl } from '../../lib/emulator/control-client.js';
import type { Resolved } from '../../lib/config/profile.js';
import { ADMIN_TOKEN_ENV } from '../../lib/config/secret-variables.js';
import { FIAT_CURRENCY } from '../../lib/revenue/manifest.js';
import type { ReportSource } from '../../lib/revenue/html-report.js';

export const command = () =>
  new Command('report')
    .description('a self-contained HTML page of the window: totals, months with a chart, tokens, networks')
    .option('--from <date>', 'start: YYYY-MM-DD (a day in --tz) or RFC 3339, inclusive')
    .option('--to <date>', 'end: YYYY-MM-DD (a day in --tz) or RFC 3339, inclusive')
    .option('--out <file>', 'the page to write (.html), atomically')
    .option('--tz <zone>', 'IANA time zone of days and months (e.g. Africa/Lagos)', 'UTC')
    .option('--token <symbol>', 'only rows of this token')
    .option('--network <network>', 'only rows of this network')
    .addHelpText('after', examples('offramp revenue report --from 2026-01-01 --to 2026-12-31 --out 2026.html', 'offramp revenue report --from 2026-10-01 --to 2026-10-31 --tz Africa/Lagos --token usdt --out october-usdt.html'));

export type Options = OptionsOf<typeof command>;

/** The chart's size in CSS pixels (it scales to the page's width). */
const CHART = { width: 880, height: 300, color: '#2f6fb2' };

export async function run(opts: Options, ctx: Context): Promise<void> {
  if (opts.out === undefined || opts.out.trim() === '') throw new UsageError('--out: give the file to write, e.g. --out report.html');
  if (!/\.html?$/i.test(opts.out)) throw new UsageError(`--out ${opts.out}: a report is an HTML page; give a name ending in .html`);
  const zone = checkZone(opts.tz ?? 'UTC');
  const window = zonedWindow(await windowFlags(opts, ctx), opts, zone);
  const filters = filterFlags(opts);
  const api = await ctx.api();
  const settings = await ctx.settings();
  // Checked before the rows are read; the file itself is made only once they are, so a run
  // stopped while reading (Ctrl-C) leaves nothing behind.
  await access(dirname(resolve(opts.out)), constants.W_OK).catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`--out ${opts.out}: cannot write there (${err.code ?? err.message})`);
  });
  const open = stillOpenNote(window, ctx.now(), zone);
  if (open) ctx.io.err(`warning: ${open}`);
  // A quarter or less is charted by week (one bar a month says little), a longer window by month.
  const chartPeriod = periodsIn(window, 'month', zone).length <= 3 ? 'week' : 'month';
  const read = await groupRows(ctx, api, { window, filters, zone }, [['month'], ['token'], ['network'], [chartPeriod]], true);
  const [months, tokens, networks, bars] = read.groupings as [Grouping, Grouping, Grouping, Grouping];
  const partial = partialPeriods(window, chartPeriod, zone);
  const rows = months.total().transactions;
  if (rows === 0) ctx.io.err(`note: ${nothingMatched(window, filters)}`);
  const [{ barChartSvg }, { reportHtml }] = await Promise.all([import('../../lib/revenue/chart.js'), import('../../lib/revenue/html-report.js')]);
  const html = reportHtml({
    window,
    zone,
    filters,
    generatedAt: ctx.now(),
    cliVersion: ctx.version,
    sha256: read.sha256!,
    // The export whose CSV the SHA-256 is of: the same window (as instants), filters and service.
    exportCommand: [...exportCommandWords({ from: window.from.toISOString(), to: window.to.toISOString(), filters }, ctx.globals, publicUrl(settings.baseUrl)), '-o', 'csv'].join(' '),
    source: await sourceOf(ctx, settings),
    chartPeriod,
    partial,
    partialMonths: partialPeriods(window, 'month', zone),
    months: months.rows(),
    tokens: tokens.rows(),
    networks: networks.rows(),
    total: months.total(),
    chartSvg: barChartSvg(
      bars.rows().map((b) => ({ label: `${b.group[chartPeriod]!}${partial.includes(b.group[chartPeriod]!) ? ' *' : ''}`, value: b.share })),
      { ...CHART, unit: FIAT_CURRENCY },
    ),
  });
  await writeAside(opts.out, html).catch((err: NodeJS.ErrnoException) => {
    throw new CliError(`could not write ${opts.out}: ${err.code ?? err.message}`, 'OUTPUT', EXIT.failure);
  });
  ctx.io.err(`Wrote ${resolve(opts.out)}: ${rows.toLocaleString('en-US')} row${rows === 1 ? '' : 's'} summarised`);
}

/**
 * The service the report read (docs/finance.md, "The report's source"). It is the emulator
 * when the emulator's own health check answers at the base URL's origin; that is asked (once,
 * without the API key) only of a service on this machine, so no stray request reaches a remote one.
 */
async function sourceOf(ctx: Context, settings: Resolved): Promise<ReportSource> {
  const base = new URL(settings.baseUrl);
  let emulator: string | undefined;
  if (isLoopbackHost(base.hostname)) {
    // The admin token only where an emulator is meant (a local profile, or none): a staging or
    // production profile on this machine is a tunnel to a service, which gets no token of ours.
    const token = settings.env === 'local' || settings.env === 'unknown' ? ctx.env[ADMIN_TOKEN_ENV] || undefined : undefined;
    const health = await callControl(ctx, { origin: base.origin, token, retries: 0 }, { method: 'GET', path: '/health', timeoutMs: 2000 }).catch(() => undefined);
    const data = health?.data as { status?: unknown; offramp_version?: unknown } | undefined;
    if (health?.status === 200 && data?.status === 'ok' && typeof data.offramp_version === 'string') emulator = data.offramp_version;
  }
  return { url: publicUrl(settings.baseUrl), profile: settings.profileName, environment: settings.env, emulator };
}
