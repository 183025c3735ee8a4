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

export function renderChecks(io: IO, checks: SliceCheck[], json: boolean): void {
  const { slices, total } = checkRows(checks);
  // Received and exported differ only when the service ignored a filter.
  const filtered = [...slices, total].some((r) => r.received !== r.rows);
  if (json) {
    io.err(JSON.stringify({ slices, total, ok: total.ok }));
    return;
  }
  const columns: Column<CheckRow>[] = [
    { header: 'SLICE', value: (r) => r.slice },
    { header: 'FROM', value: (r) => r.from },
    { header: 'TO', value: (r) => r.to },
    { header: 'ROWS', value: (r) => r.rows },
    { header: 'SHARE', value: (r) => r.share },
    ...(filtered
      ? ([
          { header: 'RECEIVED', value: (r) => r.received },
          { header: 'RECEIVED SHARE', value: (r) => r.received_share },
        ] satisfies Column<CheckRow>[])
      : []),
    { header: 'SERVICE ROWS', value: (r) => r.service_rows },
    { header: 'SERVICE SHARE', value: (r) => r.service_share },
    { header: 'CHECK', value: (r) => (r.ok ? 'ok' : 'MISMATCH') },
  ];
  renderTable(stderrView(io), columns, [...slices, total]);
}
