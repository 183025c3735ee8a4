// offramp revenue export --from T --to T [--token T] [--network N] [-o csv|json|ndjson]
//                        [--out FILE] [--summary] [--concurrency N]
// Streams every ledger row of the window (src/lib/revenue/export.ts does the slicing,
// paging and ordering) as CSV (the default), a JSON array or NDJSON, to stdout or
// atomically to FILE. --summary checks each slice's row count and summed share against
// the service's summary: the totals go to stderr, and a mismatch exits 8 naming the slice
// (FILE is then not written: an export that fails its check must not look finished).
import type { Context, Globals } from '../../lib/context.js';
import { AtomicFile } from '../../lib/atomic-file.js';
import { CheckFailed, CliError, EXIT, UsageError } from '../../lib/errors.js';
import { parseIntFlag, parseSymbol } from '../../lib/input.js';
import { windowFlags } from '../../lib/window-input.js';
import { resolveFormat } from '../../lib/output/format.js';
import { startSpinner } from '../../lib/output/spinner.js';
import { checkSlices, exportRevenue, ExportAborted, type ExportProgress, type RevenueFilters } from '../../lib/revenue/export.js';
import { OrderedOutput } from '../../lib/revenue/ordered-output.js';
import { renderChecks } from '../../lib/revenue/report.js';
import { rowFormatter, type ExportFormat } from '../../lib/revenue/row-format.js';
import { describeSlice, planSlices } from '../../lib/revenue/slices.js';
import { setV8Flags } from '../../lib/v8-flags.js';

export type Options = {
  from?: string;
  to?: string;
  token?: string;
  network?: string;
  out?: string;
  summary?: boolean;
  concurrency?: string;
};

export const MAX_CONCURRENCY = 16;

export async function run(opts: Options, ctx: Context): Promise<number> {
  const { io } = ctx;
  const format = exportFormat(ctx.globals);
  const window = await windowFlags(opts, ctx);
  const concurrency = parseIntFlag(opts.concurrency ?? 4, '--concurrency', 1, MAX_CONCURRENCY);
  const filters = filterFlags(opts);
  if (opts.out !== undefined && opts.out.trim() === '') throw new UsageError('--out: give a file name');
  const slices = planSlices(window, concurrency);
  const api = await ctx.api();
  keepHeapSmall();

  let file: AtomicFile | undefined;
  if (opts.out) {
    try {
      file = await AtomicFile.create(opts.out);
    } catch (err) {
      throw new UsageError(`--out ${opts.out}: cannot write there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
  const out = file?.stream ?? io.stdout;
  const output = new OrderedOutput(out, rowFormatter(format), slices.length);

  // A closed pipe (`| head`), a full disk, Ctrl-C: each stops the export cleanly.
  const stop = new AbortController();
  let outputError: NodeJS.ErrnoException | undefined;
  const onOutputError = (err: NodeJS.ErrnoException) => {
    outputError ??= err;
    stop.abort();
  };
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    stop.abort();
  };
  out.on('error', onOutputError);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress = await startProgress(ctx);
  const started = performance.now();

  let reports;
  try {
    reports = await exportRevenue({ api, slices, filters, concurrency, summary: Boolean(opts.summary), output, signal: stop.signal, onProgress: progress.update });
  } catch (err) {
    progress.stop();
    // Taken before abort(): destroying the file stream may report errors of its own.
    out.off('error', onOutputError);
    const cause = outputError;
    await file?.abort();
    const notWritten = opts.out ? `; ${opts.out} was not written` : '';
    if (interrupted) throw new CliError(`export interrupted${notWritten}`, 'INTERRUPTED', EXIT.failure);
    if (cause) {
      // The reader went away (e.g. `| head`): what it wanted it got.
      if (!file && cause.code === 'EPIPE') return 0;
      throw new CliError(`writing the export failed: ${cause.message}${notWritten}`, 'OUTPUT', EXIT.failure);
    }
    if (err instanceof ExportAborted) throw new CliError(`export interrupted${notWritten}`, 'INTERRUPTED', EXIT.failure);
    if (err instanceof CliError) {
      // Keep the error's class (exit code, request id, envelope); say what happened to FILE.
      err.message += notWritten;
      throw err;
    }
    throw new CliError(`${(err as Error).message}${notWritten}`, 'EXPORT_FAILED', EXIT.failure);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  progress.stop();

  const checks = opts.summary ? checkSlices(reports) : [];
  const failed = checks.filter((c) => !c.ok);
  if (failed.length > 0) {
    await file?.abort();
    renderChecks(io, checks, Boolean(ctx.globals.json));
    const named = failed.map((c) => `slice ${c.report.index + 1} (${describeSlice(c.report.window)}): ${c.problem}`).join('; ');
    throw new CheckFailed(
      `${failed.length === 1 ? 'a slice does' : `${failed.length} slices do`} not match the service's summary: ${named}${opts.out ? `; ${opts.out} was not written` : ''}`,
      'the ledger may have changed during the export (a window that includes now); export a closed window, or run again',
    );
  }
  try {
    await file?.commit();
  } catch (err) {
    throw new CliError(`could not finish ${opts.out}: ${(err as Error).message}`, 'OUTPUT', EXIT.failure);
  } finally {
    out.off('error', onOutputError);
  }

  const rows = reports.reduce((n, r) => n + r.rows, 0);
  const pages = reports.reduce((n, r) => n + r.pages, 0);
  if (opts.summary) renderChecks(io, checks, Boolean(ctx.globals.json));
  if (opts.out || opts.summary || io.showProgress()) {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const where = opts.out ? ` to ${opts.out}` : '';
    const checked = opts.summary ? '; totals match the service' : '';
    if (!(opts.summary && ctx.globals.json)) {
      io.err(`Exported ${rows.toLocaleString('en-US')} row${rows === 1 ? '' : 's'} (${reports.length} slice${reports.length === 1 ? '' : 's'}, ${pages} page${pages === 1 ? '' : 's'})${where} in ${seconds} s${checked}`);
    }
  }
  return 0;
}

/** CSV unless asked otherwise; a table makes no sense for an export. */
function exportFormat(globals: Globals): ExportFormat {
  if (globals.json) return 'json';
  if (!globals.output) return 'csv';
  return resolveFormat(globals, ['csv', 'json', 'ndjson']) as ExportFormat;
}

/**
 * --token and --network are sent as `crypto_currency` and `network` (the spec leaves the
 * filter names "not shown"; these are the row's own field names), lower-cased as the
 * ledger writes them.
 */
export function filterFlags(opts: { token?: string; network?: string }): RevenueFilters {
  const token = opts.token !== undefined ? parseSymbol(opts.token, '--token') : undefined;
  const network = opts.network !== undefined ? parseSymbol(opts.network, '--network') : undefined;
  return { ...(token ? { crypto_currency: token } : {}), ...(network ? { network } : {}) };
}

/** Rows, pages and slices on a terminal's stderr (ora); nothing otherwise. */
async function startProgress(ctx: Context): Promise<{ update: (p: ExportProgress) => void; stop: () => void }> {
  const spinner = await startSpinner(ctx.io, 'exporting…');
  if (!spinner) return { update: () => undefined, stop: () => undefined };
  let last = 0;
  return {
    update: (p) => {
      const now = Date.now();
      if (now - last < 100 && p.slicesDone < p.slices) return;
      last = now;
      spinner.text = `exporting: ${p.rows.toLocaleString('en-US')} rows, ${p.pages} pages, slices ${p.slicesDone}/${p.slices} done`;
    },
    stop: () => spinner.stop(),
  };
}

/**
 * Flat memory is a requirement of the export, and V8's defaults size the heap for
 * throughput: under an export's steady allocation (every page parsed, checked, formatted)
 * the young generation and the old-generation limit keep growing, so peak RSS rose from
 * 123 MB at 10,000 rows to 180-190 MB at 300,000 although the live heap stayed ~16 MB.
 * With --optimize-for-size the collector runs sooner and peak RSS measured 111 MB at both
 * sizes, with no measurable cost in time (the export waits on the network).
 *
 * The young generation still grew with the export's length: V8 doubles it each time the
 * bytes surviving young GCs since the last doubling exceed its size, and a long export
 * always gets there (each young GC finds a page or so mid-parse). Every memory-reducing
 * full GC (what --optimize-for-size asks for) shrank it and the export grew it again, to
 * 8 MB semi-spaces (16 MB committed) at 100,000 rows against 4 MB at 10,000: most of the
 * 14-18 MB of peak RSS the larger export added. --semi-space-growth-factor=1 stops the
 * doubling: the young generation keeps the size start-up left it at, and once a full GC
 * has shrunk it, it stays small. Pages are ~300 KB of short-lived garbage each, so a 1-4
 * MB young generation still holds several; young GCs come more often (each costs about
 * a millisecond, scanning only the few live objects): ~20% more CPU for the process and
 * no measurable change in wall time, which the network sets. With it (and pages no longer
 * held across requests, spools copied through one buffer) peak RSS measured ~68 MB at
 * both 10,000 and 100,000 rows (BENCHMARKS.md).
 *
 * Flags set after start-up are best-effort in V8; both are read at each sizing decision.
 * The growth factor is a plain V8 heap flag (present from Node 20 on); some newer V8s
 * hold it to a minimum of 2, and there it changes nothing: the export then sizes its
 * heap as it did before the flag was added.
 */
function keepHeapSmall(): void {
  setV8Flags('--optimize-for-size', '--semi-space-growth-factor=1');
}
