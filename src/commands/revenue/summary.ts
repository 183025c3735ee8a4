// offramp revenue summary: totals of the ledger for a window (docs/finance.md, "offramp
// revenue summary", says what is read and why a filter is summed from rows). A summary of
// another window than the one asked for, or a row stamped outside it, is ANSWER_MISMATCH
// (src/lib/client/checked-calls.ts): a month's totals are never shown as a day's.
import { Command } from '@commander-js/extra-typings';
import type { Api } from '../../lib/client/api.js';
import type { Context } from '../../lib/context.js';
import { filterFlags } from '../../lib/input/values.js';
import { windowFlags } from '../../lib/input/window.js';
import type { Window } from '../../lib/input/dates.js';
import { guardExceptAmounts, writeCsv } from '../../lib/output/csv.js';
import { groupThousands } from '../../lib/output/figures.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { renderTable } from '../../lib/output/render.js';
import { writeJson } from '../../lib/output/json.js';
import { DIMENSIONS, parseDimensions, type Grouping, type Dimension, type Figures, type GroupRow } from '../../lib/revenue/groups.js';
import { checkZone, nothingMatched, stillOpenNote, zonedWindow } from '../../lib/revenue/periods.js';
import { border, renderGroups } from '../../lib/revenue/tables.js';
import { groupRows } from '../../lib/revenue/rows.js';
import { serviceSummaries } from '../../lib/revenue/service-summary.js';
import { DecimalSum } from '../../lib/money.js';
import type { RevenueSummary } from '../../lib/schemas.js';
import { examples, type OptionsOf } from '../command.js';

export const command = () =>
  new Command('summary')
    .description('revenue totals for a date range, whole or by period, token, network, merchant or terminal')
    .option('--from <date>', 'start: YYYY-MM-DD (a day in --tz) or RFC 3339, inclusive')
    .option('--to <date>', 'end: YYYY-MM-DD (a day in --tz) or RFC 3339, inclusive')
    .option('--by <groups>', `one row per group, comma-separated: ${DIMENSIONS.join(', ')} (e.g. month,token)`)
    .option('--tz <zone>', 'IANA time zone of days and periods (e.g. Africa/Lagos)', 'UTC')
    .option('--token <symbol>', 'only rows of this token (totals then come from the rows)')
    .option('--network <network>', 'only rows of this network (totals then come from the rows)')
    .option('--no-chart', 'no bar column in a table by period')
    .addHelpText(
      'after',
      examples('offramp revenue summary --from 2026-10-01 --to 2026-10-31', 'offramp revenue summary --from 2026-01-01 --to 2026-12-31 --by month', 'offramp revenue summary --from 2026-07-01 --to 2026-09-30 --by month,token --tz Africa/Lagos'),
    );

export type Options = OptionsOf<typeof command>;

export async function run(opts: Options, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals, formatsOf('revenue summary'));
  const by = opts.by !== undefined ? parseDimensions(opts.by) : undefined;
  const zone = checkZone(opts.tz ?? 'UTC');
  const window = zonedWindow(await windowFlags(opts, ctx), opts, zone);
  const filters = filterFlags(opts);
  const api = await ctx.api();
  const open = stillOpenNote(window, ctx.now(), zone);
  if (open) ctx.io.err(`warning: ${open}`);
  if (!by && Object.keys(filters).length === 0) return serviceTotals(ctx, api, window, format);

  const [grouping] = (await groupRows(ctx, api, { window, filters, zone }, [by ?? []])).groupings as [Grouping];
  const total = grouping.total();
  if (total.transactions === 0) ctx.io.err(`note: ${nothingMatched(window, filters)}`);
  if (!by) {
    // The shape of the service's totals, summed from the matching rows.
    const whole = summaryOf(window, total.share, total.transactions);
    if (format === 'json') return writeJson(ctx.io, { ...whole, ...filters, amount: total.amount, platform_fee: total.platform_fee, crypto_amounts: total.crypto_amounts });
    return totalTable(ctx, whole, total, format);
  }
  const rows = grouping.rows();
  if (format === 'json') {
    return writeJson(ctx.io, { from: window.from.toISOString(), to: window.to.toISOString(), tz: zone, by, ...filters, rows: rows.map(({ group, ...figures }) => ({ ...group, ...figures })), total });
  }
  if (format === 'csv') return writeGroupsCsv(ctx, by, rows);
  renderGroups(ctx.io, rows, total, { by, chart: opts.chart !== false });
}

/** CSV: one record per group (no total: a spreadsheet's SUM would count it twice); token amounts one column per token. */
async function writeGroupsCsv(ctx: Context, by: Dimension[], rows: GroupRow[]): Promise<void> {
  const tokens = [...new Set(rows.flatMap((r) => Object.keys(r.crypto_amounts)))].sort();
  const cryptoColumns = by.includes('token') ? ['crypto_amount'] : tokens.map((t) => `crypto_amount ${t}`);
  const records = rows.map((row) => {
    const crypto = by.includes('token') ? { crypto_amount: Object.values(row.crypto_amounts)[0] ?? '0' } : Object.fromEntries(tokens.map((t) => [`crypto_amount ${t}`, row.crypto_amounts[t] ?? '0']));
    return { ...row.group, transactions: row.transactions, amount: row.amount, platform_fee: row.platform_fee, share: row.share, ...crypto };
  });
  // The groups' names come from the service (a merchant or terminal id): guarded as the ledger's cells are.
  const figures = ['transactions', 'amount', 'platform_fee', 'share', ...cryptoColumns];
  await writeCsv(ctx.io, [...by, ...figures], records, { guard: guardExceptAmounts(figures) });
}

/** The service's own totals, one summary per legal window, summed exactly. */
async function serviceTotals(ctx: Context, api: Api, window: Window, format: string): Promise<void> {
  const summaries = await serviceSummaries(api, window);
  const share = new DecimalSum();
  for (const s of summaries) share.add(s.total_partner_share);
  const total = summaryOf(window, share.toString(), summaries.reduce((n, s) => n + s.transaction_count, 0));
  if (format === 'json') return writeJson(ctx.io, { ...total, slices: summaries });
  return totalTable(ctx, total, undefined, format);
}

/** A window's totals in the shape of the service's summary. */
function summaryOf(window: Window, share: string, transactions: number): RevenueSummary {
  return { from: window.from.toISOString(), to: window.to.toISOString(), total_partner_share: share, transaction_count: transactions };
}

/** The window's total as one line (no per-request rows: those windows are the API's, not the calendar's). */
async function totalTable(ctx: Context, total: RevenueSummary, figures: Figures | undefined, format: string): Promise<void> {
  const line = {
    from: total.from,
    to: total.to,
    transactions: total.transaction_count,
    ...(figures ? { amount: figures.amount, platform_fee: figures.platform_fee } : {}),
    share: total.total_partner_share,
  };
  if (format === 'csv') return writeCsv(ctx.io, Object.keys(line), [line]);
  const num = (v: string | number) => (ctx.io.tableWidth !== undefined ? groupThousands(String(v)) : String(v));
  renderTable(ctx.io, [
    { header: 'FROM', value: (r: typeof line) => border(r.from, '00:00:00.000Z') },
    { header: 'TO', value: (r) => border(r.to, '23:59:59.999Z') },
    { header: 'TXNS', value: (r) => num(r.transactions) },
    ...(figures ? [{ header: 'VOLUME (NGN)', value: (r: typeof line) => num(r.amount!) }, { header: 'FEE (NGN)', value: (r: typeof line) => num(r.platform_fee!) }] : []),
    { header: 'SHARE (NGN)', value: (r) => num(r.share) },
  ], [line]);
}
