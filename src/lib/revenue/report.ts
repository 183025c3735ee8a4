// The per-slice totals that `revenue export --summary` prints (on stderr: stdout carries
// the rows) and that `revenue summary` prints as its data.
import type { IO } from '../io.js';
import type { Column } from '../output/render.js';
import { renderTable } from '../output/render.js';
import type { SliceCheck } from './export.js';
import { DecimalSum } from './totals.js';

/** An IO whose `out` is stderr, for tables that are not the command's data. */
export function stderrView(io: IO): IO {
  return Object.create(io, {
    out: { value: (text: string) => io.stderr.write(io.redact(text)) },
    colorOut: { value: io.colorErr },
    stdoutIsTTY: { value: io.stderrIsTTY },
  }) as IO;
}

export type CheckRow = {
  slice: string;
  from: string;
  to: string;
  rows: number;
  share: string;
  /** Rows the service sent, and their share: what its summary is compared with. */
  received: number;
  received_share: string;
  service_rows: number | null;
  service_share: string | null;
  ok: boolean;
};

export function checkRows(checks: SliceCheck[]): { slices: CheckRow[]; total: CheckRow } {
  const slices = checks.map(({ report, ok }) => ({
    slice: String(report.index + 1),
    from: report.window.from.toISOString(),
    to: report.window.to.toISOString(),
    rows: report.rows,
    share: report.share.toString(),
    received: report.received,
    received_share: report.receivedShare.toString(),
    service_rows: report.service?.transaction_count ?? null,
    service_share: report.service?.total_partner_share ?? null,
    ok,
  }));
  const share = new DecimalSum();
  const receivedShare = new DecimalSum();
  const serviceShare = new DecimalSum();
  for (const { report } of checks) {
    share.addSum(report.share);
    receivedShare.addSum(report.receivedShare);
    if (report.service) serviceShare.add(report.service.total_partner_share);
  }
  const total: CheckRow = {
    slice: 'total',
    from: slices[0]?.from ?? '',
    to: slices[slices.length - 1]?.to ?? '',
    rows: slices.reduce((n, s) => n + s.rows, 0),
    share: share.toString(),
    received: slices.reduce((n, s) => n + s.received, 0),
    received_share: receivedShare.toString(),
    service_rows: slices.reduce((n, s) => n + (s.service_rows ?? 0), 0),
    service_share: serviceShare.toString(),
    ok: checks.every((c) => c.ok),
  };
  return { slices, total };
}

/**
 * The per-slice check as a table that fits 80 columns with the figures of an ordinary
 * ledger: borders as days when they fall on midnight UTC (an export's slices are whole
 * days), and the service's figures only where they differ from ours (`ok` otherwise);
 * --json keeps every field.
 */
export function renderChecks(io: IO, checks: SliceCheck[], json: boolean): void {
  const { slices, total } = checkRows(checks);
  // Received and exported differ only when the service ignored a filter.
  const filtered = [...slices, total].some((r) => r.received !== r.rows);
  if (json) {
    io.err(JSON.stringify({ slices, total, ok: total.ok }));
    return;
  }
  const figures = (rows: number | null, share: string | null) => `${rows ?? '—'} row${rows === 1 ? '' : 's'}, ${share ?? '—'}`;
  const columns: Column<CheckRow>[] = [
    { header: 'SLICE', value: (r) => r.slice },
    { header: 'FROM', value: (r) => border(r.from, '00:00:00.000Z') },
    { header: 'TO', value: (r) => border(r.to, '23:59:59.999Z') },
    { header: 'ROWS', value: (r) => r.rows },
    { header: 'SHARE', value: (r) => r.share },
    ...(filtered ? ([{ header: 'RECEIVED', value: (r) => figures(r.received, r.received_share) }] satisfies Column<CheckRow>[]) : []),
    { header: 'SERVICE', value: (r) => (r.ok ? 'ok' : `MISMATCH: ${figures(r.service_rows, r.service_share)}`) },
  ];
  renderTable(stderrView(io), columns, [...slices, total]);
}

/** An ISO instant as its day when its time of day is `edge` (a whole-day border), else whole, without zero milliseconds. */
function border(iso: string, edge: string): string {
  if (iso.endsWith(`T${edge}`)) return iso.slice(0, 10);
  return iso.replace(/\.000Z$/, 'Z');
}
