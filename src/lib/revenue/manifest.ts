// `revenue export --manifest FILE.json`: what an auditor files beside the export
// (docs/finance.md, "`--manifest`, progress, `--summary`, filters").
import { publicUrl } from '../client/url.js';
import type { ExportResult, SliceCheck } from './export.js';
import type { Binding } from './resume.js';
import { checkRows } from './tables.js';
import type { Grouping } from './groups.js';
import { SHEETS, type TextAmounts } from './xlsx.js';

/** Fiat amounts are in NGN (docs/api.md, "What the spec fixes": money). */
export const FIAT_CURRENCY = 'NGN';

export type ManifestInput = {
  now: Date;
  cliVersion: string;
  /** The export's query: service, window, --tz, filters and what decides the file's content. */
  binding: Binding;
  /** Absolute path of --out; undefined for stdout. */
  file: string | undefined;
  result: ExportResult;
  /** The rows written, grouped (by token among others). */
  sums: Grouping;
  /** With --summary: the checks against the service's summary. */
  checks?: SliceCheck[];
  /**
   * With -o xlsx: the amount cells the workbook holds as text, because a spreadsheet number
   * cannot hold them exactly (a SUM() over the column skips them).
   */
  textAmounts?: TextAmounts;
};

/** The API version in the base path (`/api/v1/partner` → `v1`), when it has one. */
export function apiVersion(url: string): string | null {
  return /\/api\/(v\d+)(?:\/|$)/.exec(publicUrl(url))?.[1] ?? null;
}

export function buildManifest(m: ManifestInput) {
  const all = m.sums.total();
  const { binding: b, result } = m;
  const summary = m.checks ? checkRows(m.checks, all) : undefined;
  return {
    kind: 'offramp.revenue-export.manifest',
    version: 1,
    generated_at: m.now.toISOString(),
    cli: { name: 'offramp-cli', version: m.cliVersion },
    api: { version: apiVersion(b.service), base_url: b.service },
    window: { from: b.from, to: b.to, tz: b.tz },
    filters: { token: b.filters.crypto_currency ?? null, network: b.filters.network ?? null },
    format: b.format,
    options: { excel: b.excel, raw_cells: b.raw_cells },
    output: { file: m.file ?? null, bytes: result.bytes, sha256: result.sha256 },
    rows: result.rows,
    slices: result.tallies.length,
    pages: result.pages,
    totals: { rows: all.transactions, fiat: { currency: FIAT_CURRENCY, amount: all.amount, platform_fee: all.platform_fee, share: all.share }, tokens: m.sums.tokens() },
    ...(summary ? { service_summary: { ok: summary.total.ok, slices: summary.slices, total: summary.total } } : {}),
    ...(m.textAmounts ? { xlsx: { sheets: [SHEETS.rows, SHEETS.totals, SHEETS.byMonth], amounts_as_text: m.textAmounts } } : {}),
  };
}
