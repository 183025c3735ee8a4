// A service holding a given ledger: GET /revenue answers the rows of the window asked for
// (from/to inclusive, token and network filters), a page at a time (cursor = offset), with
// the window's summary when asked. For property tests over ledgers the emulator cannot seed.
import { json, scriptedServer, type Answer } from '../helpers/server.js';
import { exactSum } from '../helpers/decimal.js';
import { ledgerRow } from './export-helpers.js';

export type Row = ReturnType<typeof ledgerRow>;

export function ledgerAnswer(rows: Row[]): Answer {
  return (req, res) => {
    const q = new URL(req.url, 'http://x').searchParams;
    const from = Date.parse(q.get('from')!);
    const to = Date.parse(q.get('to')!);
    const token = q.get('crypto_currency')?.toLowerCase();
    const network = q.get('network')?.toLowerCase();
    const match = rows.filter((r) => {
      const t = Date.parse(r.ts);
      return t >= from && t <= to && (!token || r.crypto_currency.toLowerCase() === token) && (!network || r.network.toLowerCase() === network);
    });
    const limit = Number(q.get('limit') ?? 100);
    const offset = Number(q.get('cursor') ?? 0);
    const page = match.slice(offset, offset + limit);
    const more = offset + limit < match.length;
    const summary =
      q.get('include_summary') === 'true'
        ? { summary: { from: q.get('from'), to: q.get('to'), transaction_count: match.length, total_partner_share: match.length ? exactSum(match.map((r) => r.share)) : '0.00' } }
        : {};
    return json(200, { success: true, data: { data: page, has_more: more, limit, next_cursor: more ? String(offset + limit) : null, ...summary } })(req, res);
  };
}

/** A loopback server holding `rows`, answering up to `requests` requests. */
export function ledgerServer(rows: Row[], requests = 5_000) {
  const answer = ledgerAnswer(rows);
  return scriptedServer(Array.from({ length: requests }, () => answer));
}

/** A small deterministic random source (mulberry32), so a failing ledger can be made again from its seed. */
export function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const digits = (n: number) => Array.from({ length: n }, () => int(10)).join('');
  return {
    int,
    pick: <T>(list: readonly T[]) => list[int(list.length)]!,
    /** A decimal with up to `whole` integer digits and exactly `places` places. */
    decimal: (whole: number, places: number) => `${String(BigInt(digits(1 + int(whole))))}${places ? `.${digits(places)}` : ''}`,
  };
}

/**
 * A random ledger of up to `max` rows over [from, to): 18-decimal token amounts (and the
 * odd 6-decimal one), NGN amounts of two places, several tokens, networks, merchants and
 * terminals (null ones too), and whole months without a row.
 */
export function randomLedger(seed: number, from: string, to: string, max: number): Row[] {
  const r = random(seed);
  const start = Date.parse(from);
  const span = Date.parse(to) - start;
  // Months left empty: rows stamped in them are dropped.
  const skip = new Set([r.int(4), r.int(4)].map((m) => new Date(start + (m * span) / 4).toISOString().slice(0, 7)));
  const rows: Row[] = [];
  const n = r.int(max + 1);
  for (let i = 0; i < n; i++) {
    const ts = new Date(start + r.int(span)).toISOString();
    if (skip.has(ts.slice(0, 7))) continue;
    rows.push(
      ledgerRow(rows.length + 1, ts, {
        crypto_currency: r.pick(['usdt', 'usdc', 'cngn']),
        network: r.pick(['bep20', 'trc20', 'erc20']),
        merchant_id: r.pick(['m-1', 'm-2', null]),
        terminal_id: r.pick(['t-1', 't-2', 't-3', null]),
        crypto_amount: r.decimal(6, r.pick([18, 18, 6])),
        amount: r.decimal(9, 2),
        platform_fee: r.decimal(7, 2),
        share: r.decimal(7, r.pick([2, 2, 4])),
      }),
    );
  }
  return rows.sort((a, b) => a.ts.localeCompare(b.ts));
}
