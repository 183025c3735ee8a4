// The columns `webhooks list` and `webhooks replay` share, and how each gives way on a
// narrow terminal (render.ts, layout; docs/output.md "Tables"): what a reader came for (the
// ids, the delivery or publish status, the last error) is cut last; the type is shown
// short first (`tx.completed` for `transaction.completed`, only when the table does not
// fit), then the least needed columns go.
import type { Column } from '../output/render.js';

export const eventIdColumn = <T>(id: (row: T) => string): Column<T> => ({ header: 'EVENT ID', value: id, fit: { min: 9, giveWay: 'first' } });

/** `transaction.` is the longest family name: the compact form shortens it alone, every type stays whole. */
export const typeColumn = <T>(type: (row: T) => string | undefined): Column<T> => ({
  header: 'TYPE',
  value: type,
  compact: (row) => type(row)?.replace(/^transaction\./, 'tx.'),
});

/** Left out only when the table cannot fit otherwise (after the columns of lower `drop`). */
export const transactionColumn = <T>(id: (row: T) => string | undefined, drop: number): Column<T> => ({
  header: 'TRANSACTION',
  value: id,
  fit: { min: 9, drop, giveWay: 'first' },
});

/** The free text a reader came for (the last error, a replay's failure): cut last, and never below `min`. */
export const reasonColumn = <T>(header: string, text: (row: T) => string | null | undefined, min: number): Column<T> => ({
  header,
  value: text,
  fit: { min, giveWay: 'last' },
});
