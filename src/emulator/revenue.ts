// The revenue ledger: one row per completed transaction, read by GET /revenue in pages
// ordered by (ts, transaction_id), with an optional summary of the whole window. The spec
// gives the row and page shapes, inclusive from/to and the 90-day rule; the fees, page
// size, filters and seeding are our choices (docs/emulator.md, "Revenue"). The cursor is
// the (ts, transaction_id) of the last row served, so rows completed while a partner pages
// never shift the pages.
import type { RevenuePage, RevenueRow, RevenueSummary } from '../lib/schemas.js';
import { Decimal, FIAT_DECIMALS } from '../lib/money.js';
import { MAX_WINDOW_MS } from '../lib/input/dates.js';
import { iso } from './clock.js';
import { decodeLedgerCursor, encodeCursor } from './cursor.js';
import { badRequest } from './envelope.js';
import type { Query } from './params.js';
import { checkOrder, parseBoolParam, parseLimit, parseTextParam, requireDateParam } from './params.js';
import type { SeededRows } from './revenue-seed.js';
import { firstIndex } from './sorted.js';

export const PLATFORM_FEE_RATE = new Decimal('0.01');
export const PARTNER_SHARE_RATE = new Decimal('0.25');
export const DEFAULT_REVENUE_LIMIT = 50;

type Entry = { tsMs: number; row: RevenueRow };
type Filter = { token: string | undefined; network: string | undefined };

export class Ledger {
  /** Rows written by completions, sorted by (ts, transaction_id). */
  private readonly entries: Entry[] = [];
  /** Synthetic history from --seed-revenue, kept in columns (revenue-seed.ts); set by seed(), read by the state file. */
  seeded: SeededRows | undefined;
  private version = 0;
  /** Window summaries, valid while the ledger is unchanged: an export asks for the same one on every page. */
  private readonly summaries = new Map<string, { version: number; summary: RevenueSummary }>();

  get size(): number {
    return this.entries.length + (this.seeded?.length ?? 0);
  }

  add(row: RevenueRow): void {
    const entry = { tsMs: Date.parse(row.ts), row };
    // Completions arrive in time order, so this is nearly always an append.
    const last = this.entries[this.entries.length - 1];
    const at = !last || compare(last.tsMs, last.row.transaction_id, entry.tsMs, row.transaction_id) <= 0
      ? this.entries.length
      : this.liveAfter(entry.tsMs, row.transaction_id);
    this.entries.splice(at, 0, entry);
    this.version++;
  }

  seed(rows: SeededRows): void {
    this.seeded = rows;
    this.version++;
  }

  /** The rows completions wrote, in ledger order (for the state file). */
  liveRows(): readonly RevenueRow[] {
    return this.entries.map((e) => e.row);
  }

  /** Puts back rows read from a state file, in any order. */
  restore(rows: RevenueRow[]): void {
    for (const row of rows) this.entries.push({ tsMs: Date.parse(row.ts), row });
    this.entries.sort((a, b) => compare(a.tsMs, a.row.transaction_id, b.tsMs, b.row.transaction_id));
    this.version++;
  }

  page(query: Query): RevenuePage {
    const from = requireDateParam(query, 'from');
    const to = requireDateParam(query, 'to');
    checkOrder(from, to);
    if (to - from > MAX_WINDOW_MS) {
      throw badRequest('the time window cannot exceed 90 days (split longer periods into windows of at most 90 days)');
    }
    const includeSummary = parseBoolParam(query, 'include_summary');
    const limit = parseLimit(query, DEFAULT_REVENUE_LIMIT);
    const filter: Filter = { token: parseTextParam(query, 'crypto_currency'), network: parseTextParam(query, 'network') };
    const rawCursor = query.get('cursor');
    const after = rawCursor ? decodeLedgerCursor(rawCursor) : undefined;

    // Merge the two sorted sources, starting at the window or just after the cursor.
    const seeded = this.seeded;
    let i = seeded ? Math.max(seeded.firstAtOrAfter(from), after ? seeded.firstAfter(after.t, after.id) : 0) : 0;
    let j = Math.max(this.liveAtOrAfter(from), after ? this.liveAfter(after.t, after.id) : 0);
    const data: RevenueRow[] = [];
    let hasMore = false;
    for (;;) {
      const seedTs = seeded && i < seeded.length ? seeded.tsAt(i) : Infinity;
      const live = this.entries[j];
      const liveTs = live ? live.tsMs : Infinity;
      let takeSeed = seedTs < liveTs;
      if (seedTs === liveTs && seedTs !== Infinity) takeSeed = seeded!.idAt(i) < live!.row.transaction_id;
      const ts = takeSeed ? seedTs : liveTs;
      if (ts === Infinity || ts > to) break;
      const matches = takeSeed ? seeded!.matches(i, filter.token, filter.network) : rowMatches(live!.row, filter);
      if (matches) {
        if (data.length === limit) {
          hasMore = true;
          break;
        }
        data.push(takeSeed ? seeded!.rowAt(i) : live!.row);
      }
      if (takeSeed) i++;
      else j++;
    }
    const last = data[data.length - 1];
    const page: RevenuePage = {
      data,
      has_more: hasMore,
      limit,
      next_cursor: hasMore && last ? encodeCursor('rev', { t: Date.parse(last.ts), id: last.transaction_id }) : null,
    };
    if (includeSummary) page.summary = this.summarise(from, to, filter);
    return page;
  }

  /** Totals of the whole window (every page), not just the page returned. */
  private summarise(from: number, to: number, filter: Filter): RevenueSummary {
    const key = `${from}|${to}|${filter.token ?? ''}|${filter.network ?? ''}`;
    const cached = this.summaries.get(key);
    if (cached && cached.version === this.version) return cached.summary;
    let share = new Decimal(0);
    let count = 0;
    for (let j = this.liveAtOrAfter(from); j < this.entries.length; j++) {
      const entry = this.entries[j]!;
      if (entry.tsMs > to) break;
      if (!rowMatches(entry.row, filter)) continue;
      share = share.plus(entry.row.share);
      count++;
    }
    const seeded = this.seeded;
    if (seeded) {
      // Integer kobo: exact, and fast over tens of thousands of rows.
      let kobo = 0;
      for (let i = seeded.firstAtOrAfter(from); i < seeded.length && seeded.tsAt(i) <= to; i++) {
        if (!seeded.matches(i, filter.token, filter.network)) continue;
        kobo += seeded.shareKoboAt(i);
        count++;
      }
      share = share.plus(new Decimal(kobo).times('0.01'));
    }
    const summary = { from: iso(from), to: iso(to), total_partner_share: share.toFixed(FIAT_DECIMALS), transaction_count: count };
    if (this.summaries.size > 1000) this.summaries.clear();
    this.summaries.set(key, { version: this.version, summary });
    return summary;
  }

  private liveAtOrAfter(tsMs: number): number {
    return firstIndex(this.entries.length, (i) => this.entries[i]!.tsMs >= tsMs);
  }

  private liveAfter(tsMs: number, id: string): number {
    return firstIndex(this.entries.length, (i) => compare(this.entries[i]!.tsMs, this.entries[i]!.row.transaction_id, tsMs, id) > 0);
  }
}

function compare(aTs: number, aId: string, bTs: number, bId: string): number {
  if (aTs !== bTs) return aTs - bTs;
  return aId < bId ? -1 : aId > bId ? 1 : 0;
}

function rowMatches(row: RevenueRow, filter: Filter): boolean {
  return (filter.token === undefined || row.crypto_currency === filter.token) && (filter.network === undefined || row.network === filter.network);
}

export function fees(amount: Decimal): { platform_fee: Decimal; share: Decimal } {
  const platform_fee = amount.times(PLATFORM_FEE_RATE).toDecimalPlaces(FIAT_DECIMALS, Decimal.ROUND_HALF_UP);
  const share = platform_fee.times(PARTNER_SHARE_RATE).toDecimalPlaces(FIAT_DECIMALS, Decimal.ROUND_HALF_UP);
  return { platform_fee, share };
}
