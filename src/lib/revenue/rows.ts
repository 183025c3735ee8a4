// Reading a window's ledger rows to sum them (`revenue summary --by`, `revenue report`)
// through the export's own page pipeline (export.ts), so a summary fetches no more and no
// slower than the export of the same window (BENCHMARKS.md, "Revenue summary"). With `csv`,
// the rows' SHA-256 is that of the export's default CSV, so a report names exactly the rows
// it summarises.
import { Duplex, Transform, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Api, RevenueFilters } from '../client/api.js';
import type { Window } from '../input/dates.js';
import { startProgress, type ProgressContext } from '../output/spinner.js';
import type { RevenueRow } from '../schemas.js';
import { DEFAULT_CONCURRENCY, exportRevenue } from './export.js';
import { Grouping, type Dimension } from './groups.js';
import { formatStage } from './row-format.js';
import { planSlices } from './slices.js';

/** A stage that passes each row to `onRow` and on to `stage`, whose output it gives. */
export function tapRows(stage: Transform | Duplex, onRow: (row: RevenueRow) => void): Duplex {
  const rowsIn = new Writable({
    objectMode: true,
    write(row: RevenueRow, _encoding, done) {
      onRow(row);
      if (stage.write(row)) done();
      else stage.once('drain', () => done());
    },
    // Finished once the stage has taken every row (an XLSX stage writes its workbook then).
    final(done) {
      stage.end();
      finished(stage, { readable: false }).then(() => done(), done);
    },
    // This side is destroyed once finished (autoDestroy): only a failure destroys the stage,
    // whose output is still being read.
    destroy(err, done) {
      if (err) stage.destroy(err);
      done(err);
    },
  });
  return Duplex.from({ writable: rowsIn, readable: stage });
}

/** A stage that takes rows and gives no bytes. */
function rowsOnly(onRow: (row: RevenueRow) => void): Transform {
  return new Transform({
    writableObjectMode: true,
    transform(row: RevenueRow, _encoding, done) {
      onRow(row);
      done();
    },
  });
}

export type GroupQuery = { window: Window; filters: RevenueFilters; zone: string };

/**
 * The window's rows summed by each grouping of `bys` in one pass; with `csv`, their export's
 * SHA-256. Progress (rows so far) as every command that reads many things shows it.
 */
export async function groupRows(ctx: ProgressContext, api: Pick<Api, 'revenue' | 'http'>, q: GroupQuery, bys: Dimension[][], csv = false): Promise<{ groupings: Grouping[]; sha256?: string }> {
  const groupings = bys.map((by) => new Grouping({ by, zone: q.zone, window: q.window }));
  const progress = await startProgress(ctx, 'reading the ledger');
  const onRow = (row: RevenueRow) => {
    for (const g of groupings) g.add(row);
  };
  try {
    const read = await exportRevenue({
      api,
      slices: planSlices(q.window),
      filters: q.filters,
      concurrency: DEFAULT_CONCURRENCY,
      summary: false,
      // With `csv`, the rows are also hashed as `revenue export -o csv` writes them.
      format: csv ? tapRows(formatStage('csv'), onRow) : rowsOnly(onRow),
      dest: new Writable({ write: (_chunk, _encoding, done) => done() }),
      endDest: true,
      onProgress: (p) => progress.count(p.rows),
    });
    return { groupings, ...(csv ? { sha256: read.sha256 } : {}) };
  } finally {
    progress.stop();
  }
}
