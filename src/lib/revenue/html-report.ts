// `revenue report`'s page (docs/finance.md, "`offramp revenue report`"): one self-contained
// HTML file (inline style and SVG, no script, nothing to fetch) that a browser shows as it
// is and prints cleanly to PDF. Every text from the service is escaped.
import type { RevenueFilters } from '../client/api.js';
import type { Window } from '../input/dates.js';
import { groupThousands } from '../output/figures.js';
import type { Figures, GroupRow } from './groups.js';
import { FIAT_CURRENCY } from './manifest.js';
import { periodOf, type Period } from './periods.js';

/**
 * Which service the rows came from (docs/finance.md, "The report's source"): its base URL
 * without credentials, the profile and its environment, and the emulator's version when the
 * emulator's own health check answered at that address.
 */
export type ReportSource = { url: string; profile: string | undefined; environment: string; emulator: string | undefined };

export type ReportData = {
  window: Window;
  zone: string;
  filters: RevenueFilters;
  generatedAt: Date;
  cliVersion: string;
  /** SHA-256 of the rows as `revenue export -o csv` writes them. */
  sha256: string;
  /** The command whose output that SHA-256 is of. */
  exportCommand: string;
  months: GroupRow[];
  tokens: GroupRow[];
  networks: GroupRow[];
  total: Figures;
  source: ReportSource;
  /** The chart's period, and the labels of those the window cuts (partial); the months it cuts. */
  chartPeriod: Period;
  partial: string[];
  partialMonths: string[];
  /** The bar chart of the partner share by `chartPeriod` (chart.ts). */
  chartSvg: string;
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML shows it, never as markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const STYLE = `
:root { color-scheme: light; --ink: #1d2433; --muted: #5b6475; --rule: #d8dce3; --accent: #2f6fb2; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); margin: 2rem auto; max-width: 60rem; padding: 0 1.5rem; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--rule); padding-bottom: .25rem; }
.lede { color: var(--muted); margin: 0 0 1rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1.25rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.totals { display: grid; grid-template-columns: repeat(auto-fit, minmax(13rem, 1fr)); gap: .75rem; margin: 1rem 0; }
.totals div { border: 1px solid var(--rule); border-radius: 6px; padding: .6rem .8rem; }
.totals span { display: block; color: var(--muted); font-size: .8rem; }
.totals strong { font-size: 1.1rem; font-variant-numeric: tabular-nums; white-space: nowrap; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: .3rem .5rem; border-bottom: 1px solid var(--rule); text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
thead th { color: var(--muted); font-weight: 600; font-size: .8rem; white-space: normal; vertical-align: bottom; }
tfoot td { font-weight: 700; border-top: 2px solid var(--ink); border-bottom: none; }
figure { margin: 1rem 0; }
figure svg { width: 100%; height: auto; }
code { font-size: .85em; overflow-wrap: anywhere; }
.mark { border: 3px solid #b3261e; color: #b3261e; font-weight: 700; padding: .5rem .8rem; margin: 0 0 1rem; }
footer { margin-top: 2rem; color: var(--muted); font-size: .8rem; }
@page { size: A4; margin: 14mm; }
@media print {
  body { margin: 0; max-width: none; padding: 0; font-size: 10px; }
  .totals { grid-template-columns: repeat(4, 1fr); }
  h2 { break-after: avoid; }
  tr, figure, .totals div { break-inside: avoid; }
  thead { display: table-header-group; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
`;

const money = (v: string) => escapeHtml(groupThousands(v));

type Column = { header: string; cell: (f: Figures) => string; field: string };

const FIGURES: Column[] = [
  { header: 'Transactions', field: 'transactions', cell: (f) => money(String(f.transactions)) },
  { header: `Volume (${FIAT_CURRENCY})`, field: 'amount', cell: (f) => money(f.amount) },
  { header: `Platform fee (${FIAT_CURRENCY})`, field: 'platform_fee', cell: (f) => money(f.platform_fee) },
  { header: `Partner share (${FIAT_CURRENCY})`, field: 'share', cell: (f) => money(f.share) },
];

/** A table of groups keyed by `key`, its figures in columns, a total line at the foot. */
function groupTable(id: string, keyHeader: string, key: string, rows: GroupRow[], total: Figures, extra: Column[] = [], partial = new Set<string>()): string {
  const columns = [...FIGURES, ...extra];
  const cells = (f: Figures) => columns.map((c) => `<td data-field="${c.field}">${c.cell(f)}</td>`).join('');
  const body = rows
    .map((r) => {
      const name = r.group[key as keyof GroupRow['group']] ?? '—';
      return `<tr data-key="${escapeHtml(name)}"><td>${escapeHtml(name)}${partial.has(name) ? ' (partial)' : ''}</td>${cells(r)}</tr>`;
    })
    .join('\n');
  return `<table id="${id}">
<thead><tr><th>${escapeHtml(keyHeader)}</th>${columns.map((c) => `<th>${escapeHtml(c.header)}</th>`).join('')}</tr></thead>
<tbody>
${body}
</tbody>
<tfoot><tr data-key="total"><td>Total</td>${FIGURES.map((c) => `<td data-field="${c.field}">${c.cell(total)}</td>`).join('')}${extra.map(() => '<td></td>').join('')}</tr></tfoot>
</table>`;
}

/** The banner of a report whose figures are not a production ledger's; none for production. */
function sourceMark(s: ReportSource): string | undefined {
  if (s.emulator) return `EMULATOR: synthetic figures from the offramp emulator ${s.emulator}, not a ledger of the service`;
  if (s.environment === 'production') return undefined;
  if (s.environment === 'unknown') return 'Environment not known (no profile names this service): check the service before relying on these figures';
  return `${s.environment.toUpperCase()}: figures of a ${s.environment} service, not of production`;
}

export function reportHtml(d: ReportData): string {
  const from = d.window.from.toISOString();
  const to = d.window.to.toISOString();
  const filters = [d.filters.crypto_currency ? `token ${d.filters.crypto_currency}` : '', d.filters.network ? `network ${d.filters.network}` : ''].filter(Boolean).join(', ') || 'none (every token and network)';
  // The window's first and last days on the zone's calendar.
  const title = `Revenue report, ${periodOf(from, 'day', d.zone)} to ${periodOf(to, 'day', d.zone)}`;
  const total = d.total;
  const mark = sourceMark(d.source);
  const unit = d.chartPeriod === 'week' ? 'ISO week' : d.chartPeriod;
  const partial = d.partial.length > 0 ? ` * partial ${unit}${d.partial.length > 1 ? 's' : ''} (${escapeHtml(d.partial.join(', '))}): the window holds only part of ${d.partial.length > 1 ? 'them' : 'it'}.` : '';
  const crypto: Column = { header: 'Token amount (in the token)', field: 'crypto_amount', cell: (f) => money(Object.values(f.crypto_amounts)[0] ?? '0') };
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="offramp-cli ${escapeHtml(d.cliVersion)}">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escapeHtml(title)}</h1>
${mark ? `<p class="mark" id="source-mark">${escapeHtml(mark)}</p>\n` : ''}<p class="lede">Revenue ledger totals by calendar month (${escapeHtml(d.zone)}), from the ledger's own rows.</p>
<dl class="facts">
<dt>Service</dt><dd id="service">${escapeHtml(d.source.url)}</dd>
<dt>Profile</dt><dd id="profile">${escapeHtml(d.source.profile ?? 'none (the base URL and key came from flags or the environment)')}</dd>
<dt>Environment</dt><dd id="environment">${escapeHtml(d.source.emulator ? `emulator (offramp ${d.source.emulator}, answered its health check)` : d.source.environment)}</dd>
<dt>Window</dt><dd id="window">${escapeHtml(from)} … ${escapeHtml(to)}</dd>
<dt>Time zone</dt><dd id="zone">${escapeHtml(d.zone)}</dd>
<dt>Filters</dt><dd id="filters">${escapeHtml(filters)}</dd>
<dt>Rows</dt><dd id="rows">${money(String(total.transactions))}</dd>
<dt>SHA-256 of the rows</dt><dd><code id="sha256">${escapeHtml(d.sha256)}</code><br><span class="lede">of the CSV that <code>${escapeHtml(d.exportCommand)}</code> writes (its manifest's <code>output.sha256</code>)</span></dd>
<dt>Made</dt><dd id="generated">${escapeHtml(d.generatedAt.toISOString())}</dd>
<dt>By</dt><dd id="cli">offramp-cli ${escapeHtml(d.cliVersion)}</dd>
</dl>
</header>
<section>
<h2>Totals</h2>
<div class="totals" id="totals">
${FIGURES.map((c) => `<div data-field="${c.field}"><span>${escapeHtml(c.header)}</span><strong>${c.cell(total)}</strong></div>`).join('\n')}
</div>
</section>
<section>
<h2>Partner share by ${unit}</h2>
<figure id="chart" aria-label="Partner share (${FIAT_CURRENCY}) by ${unit}, bar chart">
${d.chartSvg}
<figcaption>Partner share in ${FIAT_CURRENCY} by ${unit} (${escapeHtml(d.zone)}).${partial}</figcaption>
</figure>
${groupTable('months', `Month (${d.zone})`, 'month', d.months, total, [], new Set(d.partialMonths))}
</section>
<section>
<h2>By token</h2>
${groupTable('tokens', 'Token', 'token', d.tokens, total, [crypto])}
</section>
<section>
<h2>By network</h2>
${groupTable('networks', 'Network', 'network', d.networks, total)}
</section>
<footer>Every figure is the exact sum of the ledger's decimal amounts (never rounded). Made by offramp-cli ${escapeHtml(d.cliVersion)} on ${escapeHtml(d.generatedAt.toISOString())}.</footer>
</body>
</html>
`;
}
