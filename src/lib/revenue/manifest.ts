// `revenue export --manifest FILE.json`: what an auditor files beside the export
// (docs/finance.md, "`--manifest`, progress, `--summary`, filters").
import { publicUrl } from '../client/url.js';
import type { Window } from '../input/dates.js';
import type { RevenueFilters } from '../client/api.js';
import type { SliceCheck, SliceTally } from './export.js';
import { checkRows, type CheckRow } from './tables.js';
import type { Grouping } from './groups.js';
import { SHEETS, type TextAmounts } from './xlsx.js';

/** Fiat amounts are in NGN (docs/api.md, "What the spec fixes": money). */
export const FIAT_CURRENCY = 'NGN';

export type Manifest = {
  kind: 'offramp.revenue-export.manifest';
  version: 1;
  generated_at: string;
  cli: { name: 'offramp-cli'; version: string };
  api: { version: string | null; base_url: string };
  /** The window as instants, and the zone of its days and months (--tz). */
  window: { from: string; to: string; tz: string };
  filters: { token: string | null; network: string | null };
  format: string;
  options: { excel: boolean; raw_cells: boolean };
  output: { file: string | null; bytes: number; sha256: string };
  rows: number;
  slices: number;
  pages: number;
  totals: { rows: number; fiat: { currency: string; amount: string; platform_fee: string; share: string }; tokens: ReturnType<Grouping['tokens']> };
  service_summary?: { ok: boolean; slices: CheckRow[]; total: CheckRow };
  /**
   * With -o xlsx: the workbook's sheets, and the amount cells written as text because a
   * spreadsheet number cannot hold them exactly (a SUM() over the column skips them).
   */
  xlsx?: { sheets: string[]; amounts_as_text: TextAmounts };
};

export type ManifestInput = {
  now: Date;
  cliVersion: string;
  baseUrl: string;
  window: Window;
  zone: string;
  filters: RevenueFilters;
  format: string;
  excel: boolean;
  rawCells: boolean;
  /** Absolute path of --out; undefined for stdout. */
  file: string | undefined;
  bytes: number;
  sha256: string;
  tallies: SliceTally[];
  /** The rows written, grouped (by token among others). */
  sums: Grouping;
  /** With --summary: the checks against the service's summary. */
  checks?: SliceCheck[];
  /** With -o xlsx: the amount cells the workbook holds as text. */
  textAmounts?: TextAmounts;
};

/** The API version in the base path (`/api/v1/partner` → `v1`), when it has one. */
export function apiVersion(url: string): string | null {
  return /\/api\/(v\d+)(?:\/|$)/.exec(publicUrl(url))?.[1] ?? null;
}

export function buildManifest(m: ManifestInput): Manifest {
  const all = m.sums.total();
  const rows = m.tallies.reduce((n, r) => n + r.rows, 0);
  const summary = m.checks ? checkRows(m.checks, all) : undefined;
  return {
    kind: 'offramp.revenue-export.manifest',
    version: 1,
    generated_at: m.now.toISOString(),
    cli: { name: 'offramp-cli', version: m.cliVersion },
    api: { version: apiVersion(m.baseUrl), base_url: publicUrl(m.baseUrl) },
    window: { from: m.window.from.toISOString(), to: m.window.to.toISOString(), tz: m.zone },
    filters: { token: m.filters.crypto_currency ?? null, network: m.filters.network ?? null },
    format: m.format,
    options: { excel: m.excel, raw_cells: m.rawCells },
    output: { file: m.file ?? null, bytes: m.bytes, sha256: m.sha256 },
    rows,
    slices: m.tallies.length,
    pages: m.tallies.reduce((n, r) => n + r.pages, 0),
    totals: { rows: all.transactions, fiat: { currency: FIAT_CURRENCY, amount: all.amount, platform_fee: all.platform_fee, share: all.share }, tokens: m.sums.tokens() },
    ...(summary ? { service_summary: { ok: summary.total.ok, slices: summary.slices, total: summary.total } } : {}),
    ...(m.textAmounts ? { xlsx: { sheets: [SHEETS.rows, SHEETS.totals, SHEETS.byMonth], amounts_as_text: m.textAmounts } } : {}),
  };
}
