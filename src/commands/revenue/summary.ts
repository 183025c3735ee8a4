// offramp revenue summary --from T --to T
// The service's totals (partner share, transaction count) for the window: one request per
// legal slice (at most 90 days each, `include_summary=true`, `limit=1`), the slices'
// figures and the grand total summed with decimal.js.
//
// --json prints the same shape whatever the window: the service's summary fields for the
// whole window plus `slices` (one summary per request), so a script need not care whether
// the window was split.
import pLimit from 'p-limit';
import type { Context } from '../../lib/context.js';
import { windowFlags } from '../../lib/window-input.js';
import { resolveFormat } from '../../lib/output/format.js';
import { writeJson } from '../../lib/output/json.js';
import { planSlices } from '../../lib/revenue/slices.js';
import { DecimalSum } from '../../lib/revenue/totals.js';
import type { RevenueSummary } from '../../lib/schemas.js';

export type Options = { from?: string; to?: string };

const PARALLEL = 4;

export async function run(opts: Options, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals, ['table', 'json']);
  const window = await windowFlags(opts, ctx);
  // Whole 90-day slices (planSlices with no parallel split), the borders at midnight UTC.
  const slices = planSlices(window, 1);
  const api = await ctx.api();
  const limit = pLimit(PARALLEL);
  const summaries = await Promise.all(
    slices.map((slice, i) =>
      limit(async () => {
        const { data } = await api.revenue.page({ from: slice.from.toISOString(), to: slice.to.toISOString(), include_summary: true, limit: 1 });
        if (!data.summary) throw new Error(`the service sent no summary for ${slice.from.toISOString()} … ${slice.to.toISOString()} (slice ${i + 1})`);
        return data.summary;
      }),
    ),
  );
  const share = new DecimalSum();
  for (const s of summaries) share.add(s.total_partner_share);
  const total: RevenueSummary = {
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    total_partner_share: share.toString(),
    transaction_count: summaries.reduce((n, s) => n + s.transaction_count, 0),
  };
  if (format === 'json') {
    writeJson(ctx.io, { ...total, slices: summaries });
    return;
  }
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
