// offramp revenue summary --from T --to T [--token T] [--network N]
// The service's totals (partner share, transaction count) for the window: one request per
// legal slice (at most 90 days each, `include_summary=true`, `limit=1`), the slices'
// figures and the grand total summed with decimal.js. With a filter, each slice's rows are
// read and summed here instead (see sumFromRows).
//
// --json prints the same shape whatever the window: the service's summary fields for the
// whole window plus `slices` (one summary per request), so a script need not care whether
// the window was split.
//
// A summary of another window than the slice asked for, or a row stamped outside it, is
// ANSWER_MISMATCH (src/lib/client/checked-calls.ts): a month's totals are never shown as a day's.
import { Command } from '@commander-js/extra-typings';
import pLimit from 'p-limit';
import { checkRowInWindow, checkSummaryWindow } from '../../lib/client/checked-calls.js';
import type { Api } from '../../lib/client/api.js';
import type { Context } from '../../lib/context.js';
import { filterFlags } from '../../lib/input/values.js';
import { windowFlags } from '../../lib/input/window.js';
import { resolveFormat } from '../../lib/output/format.js';
import { writeJson } from '../../lib/output/json.js';
import { planSlices } from '../../lib/revenue/slices.js';
import { DecimalSum } from '../../lib/revenue/totals.js';
import type { RevenueSummary } from '../../lib/schemas.js';
import type { Window } from '../../lib/input/dates.js';
import type { RevenueFilters } from '../../lib/client/api.js';
import { examples, type OptionsOf } from '../command.js';

export const command = () =>
  new Command('summary')
    .description('total partner share and transaction count for a date range')
    .option('--from <date>', 'start: YYYY-MM-DD or RFC 3339, inclusive')
    .option('--to <date>', 'end: YYYY-MM-DD or RFC 3339, inclusive')
    .option('--token <symbol>', 'only rows of this token (totals then come from the rows)')
    .option('--network <network>', 'only rows of this network (totals then come from the rows)')
    .addHelpText('after', examples('offramp revenue summary --from 2026-10-01 --to 2026-10-31'));

const PARALLEL = 4;

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals, ['table', 'json']);
  const window = await windowFlags(opts, ctx);
  const filters = filterFlags(opts);
  // Whole 90-day slices (planSlices with no parallel split), the borders at midnight UTC.
  const slices = planSlices(window, 1);
  const api = await ctx.api();
  const limit = pLimit(PARALLEL);
  const filtered = Object.keys(filters).length > 0;
  const summaries = await Promise.all(
    slices.map((slice, i) => limit(() => (filtered ? sumFromRows(api, slice, filters) : serviceSummary(api, slice, i)))),
  );
  const share = new DecimalSum();
  for (const s of summaries) share.add(s.total_partner_share);
  const total: RevenueSummary = {
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    total_partner_share: share.toString(),
    transaction_count: summaries.reduce((n, s) => n + s.transaction_count, 0),
  };
  if (format === 'json') return writeJson(ctx.io, { ...total, ...filters, slices: summaries });
  const { renderTable } = await import('../../lib/output/render.js');
  const rows = [
    ...(summaries.length > 1 ? summaries.map((s, i) => ({ label: `slice ${i + 1}`, ...s })) : []),
    { label: 'total', ...total },
  ];
  renderTable(ctx.io, [
    { header: '', value: (r) => r.label },
    { header: 'FROM', value: (r) => r.from },
    { header: 'TO', value: (r) => r.to },
    { header: 'TRANSACTIONS', value: (r) => r.transaction_count },
    { header: 'PARTNER SHARE (NGN)', value: (r) => r.total_partner_share },
  ], rows);
}

async function serviceSummary(api: Api, slice: Window, i: number): Promise<RevenueSummary> {
  const page = await api.revenue.page({ from: slice.from.toISOString(), to: slice.to.toISOString(), include_summary: true, limit: 1 });
  if (!page.summary) throw new Error(`the service sent no summary for ${slice.from.toISOString()} … ${slice.to.toISOString()} (slice ${i + 1})`);
  return checkSummaryWindow(page.summary, slice, page.requestId);
}

/**
 * With --token or --network the totals are summed from the rows themselves: a service that
 * ignores a filter's name would otherwise answer with the totals of every pair, and
 * nothing in one summary would show it (docs/api.md, "Filters").
 */
async function sumFromRows(api: Api, slice: Window, filters: RevenueFilters): Promise<RevenueSummary> {
  const share = new DecimalSum();
  let count = 0;
  for await (const row of api.revenue.all({ from: slice.from.toISOString(), to: slice.to.toISOString(), ...filters })) {
    share.add(checkRowInWindow(row, slice).share);
    count++;
  }
  return { from: slice.from.toISOString(), to: slice.to.toISOString(), total_partner_share: share.toString(), transaction_count: count };
}
