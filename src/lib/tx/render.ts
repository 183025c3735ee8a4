// How transactions look in a terminal: the record of one transaction (grouped as
// transaction / deposit / partner fields), the streaming list table, the status history
// table, and its ledger row as the demo shows it. `--json` never comes here: it prints the
// API's data as is.
import { Transaction, type RevenueRow, type TransactionSummary, type StatusHistory } from '../schemas.js';
import type { IO } from '../io.js';
import { cell, chalkFor, layout, renderRecord, renderTable, statusColor, type CellValue, type Fit, type Section } from '../output/render.js';
import { paint, terminalSafe } from '../output/sanitize.js';
import { localTime, relative, timeCell } from '../output/time.js';
import { CANCELLABLE } from '../lifecycle.js';
import { pad, shorten, textWidth } from '../output/width.js';

/** Fields the record shows (the schema's); anything else the service sends lands in an "other" section. */
const KNOWN = new Set(Object.keys(Transaction.shape));

const token = (tx: { crypto_currency: string }) => tx.crypto_currency.toUpperCase();

/**
 * A deadline someone acts on (a deposit's, a quote's) is always shown as local time plus
 * how long is left ("2026-11-22 15:04:05 +01:00 (in 29 min)"), piped or not.
 */
export function deadlineCell(value: string, now: Date): string {
  return timeCell(value, now, true);
}

/** One transaction as a grouped record: the create/cancel `summary`, or every `snapshot` field. */
export function renderTransaction(io: IO, tx: TransactionSummary | Transaction, now: Date, kind: 'summary' | 'snapshot'): void {
  const c = chalkFor(io);
  const friendly = io.stdoutIsTTY;
  const t = tx as Partial<Transaction> & TransactionSummary;
  const time = (v: string | null | undefined) => timeCell(v, now, friendly);
  const status = paint(t.status, (s) => statusColor(c, s));
  const expecting = (CANCELLABLE as readonly string[]).includes(t.status);

  const transaction: Section = {
    title: 'transaction',
    fields: [
      ['id', t.id],
      ['status', status],
      ['amount', `${t.amount} NGN`],
      ['crypto amount', `${t.crypto_amount} ${token(t)}`],
      ['rate', `${t.rate} NGN per ${token(t)}`],
    ],
  };
  if (kind === 'snapshot') transaction.fields.push(['created', time(t.created_at)], ['updated', time(t.updated_at)]);

  const deposit: Section = {
    title: 'deposit',
    fields: [
      ['address', t.deposit_address],
      ['network', t.network],
      // The countdown only while a deposit is expected: past that (cancelled, received,
      // finished) nothing is due by the deadline, so it is only a time.
      ['deadline', expecting ? deadlineCell(t.expires_at, now) : localTime(t.expires_at)],
    ],
  };
  // Only while a deposit is expected: a cancelled or finished transaction must not read as
  // an invitation to send funds.
  if (expecting) deposit.fields.splice(2, 0, ['send', `${t.crypto_amount} ${token(t)} on ${t.network}`]);
  if (kind === 'snapshot') {
    const confirmations =
      t.confirmations === null || t.confirmations === undefined
        ? null
        : `${t.confirmations}${t.required_confirmations != null ? ` of ${t.required_confirmations}` : ''}`;
    deposit.fields.push(
      ['deposit status', t.deposit_status],
      ['deposit id', t.deposit_id],
      ['confirmations', confirmations],
      ['received', time(t.received_at)],
      ['confirmed', time(t.confirmed_at)],
    );
  }

  const partner: Section = {
    title: 'partner',
    fields: [
      ['reference', t.merchant_reference],
      ['merchant id', t.merchant_id],
      ['terminal id', t.terminal_id],
    ],
  };

  const sections = [transaction, deposit, partner];
  const extra = Object.entries(tx).filter(([k]) => !KNOWN.has(k));
  if (kind === 'snapshot' && extra.length > 0) sections.push({ title: 'other', fields: extra });
  renderRecord(io, sections);
}

type ListRow = Pick<Transaction, 'id' | 'status' | 'amount' | 'crypto_amount' | 'crypto_currency'> &
  Partial<Pick<Transaction, 'created_at' | 'merchant_reference'>>;

/**
 * The room the reference asks for before other columns give way (a longer one is cut in the
 * middle); on a wide terminal it takes whatever the other columns leave.
 */
const REFERENCE_ROOM = 48;

/**
 * The transaction list as a table written a row at a time, so `tx list --all` streams
 * instead of holding every page: fixed column widths, the reference last because it is the
 * one of unbounded length.
 */
export function listTable(io: IO, now: Date) {
  const c = chalkFor(io);
  const friendly = io.stdoutIsTTY;
  type ListColumn = { header: string; width: number; align?: 'right'; value: (tx: ListRow) => CellValue; color?: (s: string) => string; fit?: Fit };
  const all: ListColumn[] = [
    { header: 'ID', width: 36, value: (tx) => tx.id, fit: { min: 9, giveWay: 'first' } },
    { header: 'STATUS', width: 18, value: (tx) => tx.status, color: (s) => statusColor(c, s) },
    { header: 'AMOUNT (NGN)', width: 14, align: 'right', value: (tx) => tx.amount },
    { header: 'CRYPTO', width: 22, align: 'right', value: (tx) => `${tx.crypto_amount} ${tx.crypto_currency}`, fit: { drop: 1 } },
    // Relative on a terminal ("12 min ago", at most 10 characters), ISO when piped.
    { header: 'CREATED', width: friendly ? 10 : 24, value: (tx) => (tx.created_at ? (friendly ? relative(tx.created_at, now) : tx.created_at) : null) },
    // Unbounded when piped; on a terminal it takes what is left, never less than 24.
    { header: 'REFERENCE', width: REFERENCE_ROOM, value: (tx) => tx.merchant_reference, fit: { min: 24, cut: 'middle' } },
  ];
  // Rows are written as pages arrive, so the widths are fixed up front, from the terminal.
  const width = io.tableWidth;
  const plan = layout(all.map((col) => col.width), undefined, all.map((col) => col.fit), width);
  const piped = width === undefined;
  const columns = all.flatMap((col, i) => (plan.keep[i] ? [{ ...col, width: plan.widths[i]! }] : []));
  const reference = columns.at(-1)!;
  if (width !== undefined) reference.width = width - columns.slice(0, -1).reduce((sum, col) => sum + col.width + plan.gap, 0);
  const fitted = (text: string, col: ListColumn, last: boolean) => {
    // The last column is not padded; piped, it is not cut either.
    if (last) return piped ? text : shorten(text, col.width, col.fit?.cut);
    const shown = shorten(text, col.width, col.fit?.cut);
    return pad(col.color && io.colorOut ? col.color(shown) : shown, col.width, col.align);
  };
  const line = (cells: string[]) => `${cells.join(' '.repeat(plan.gap)).replace(/[ \t]+$/, '')}\n`;
  let wroteHeader = false;
  return {
    row(tx: ListRow): void {
      if (!wroteHeader) {
        io.out(line(columns.map((col, i) => c.bold(fitted(col.header, col, i === columns.length - 1)))));
        wroteHeader = true;
      }
      io.out(line(columns.map((col, i) => fitted(cell(col.value(tx)), col, i === columns.length - 1))));
    },
    get rows(): boolean {
      return wroteHeader;
    },
  };
}

/** Status history, one row per change as the service lists it; CHANGE is cut from its start, so the new status shows whole. */
export function renderHistory(io: IO, history: StatusHistory, now: Date): void {
  const friendly = io.stdoutIsTTY;
  const newest = Math.max(0, ...history.history.map((h) => textWidth(terminalSafe(h.to_status))));
  renderTable(
    io,
    [
      { header: 'CHANGE', value: (h) => `${h.from_status} → ${h.to_status}`, fit: { min: newest + '… → '.length, cut: 'start', giveWay: 'last' } },
      { header: 'WHEN', value: (h) => timeCell(h.changed_at, now, friendly), compact: (h) => relative(h.changed_at, now) },
      { header: 'REASON', value: (h) => h.reason, fit: { min: 12 } },
      { header: 'METADATA', value: (h) => (h.metadata && Object.keys(h.metadata).length > 0 ? JSON.stringify(h.metadata) : null), fit: { min: 12, drop: 1, giveWay: 'first' } },
    ],
    history.history,
  );
}

export function renderLedgerRow(io: IO, row: RevenueRow, now: Date): void {
  renderRecord(io, [
    {
      title: 'ledger row',
      fields: [
        ['transaction', row.transaction_id],
        ['reference', row.merchant_reference],
        ['amount', `${row.amount} NGN`],
        ['crypto', `${row.crypto_amount} ${row.crypto_currency} on ${row.network}`],
        ['platform fee', `${row.platform_fee} NGN`],
        ['partner share', `${row.share} NGN`],
        ['time', timeCell(row.ts, now, io.stdoutIsTTY)],
      ],
    },
  ]);
}
