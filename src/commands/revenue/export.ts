// offramp revenue export --from T --to T [--token T] [--network N] [-o csv|json|ndjson|xlsx]
//                        [--out FILE] [--summary] [--concurrency N] [--raw-cells] [--excel]
//                        [--manifest FILE] [--resume]
// Streams every ledger row of the window (src/lib/revenue/export.ts does the slicing,
// paging and ordering) as CSV (the default; spreadsheet-safe cells unless --raw-cells), a
// JSON array, NDJSON or XLSX, to stdout or atomically to FILE. --summary checks each
// slice's row count and summed share against the service's summary: the totals go to
// stderr, and a mismatch exits 8 naming the slice (FILE is then not written: an export that
// fails its check must not look finished). --manifest writes what an auditor files beside
// the export; --resume continues an interrupted export to FILE from its checkpoint.
//
// However the export ends (success, an error, Ctrl-C, SIGTERM, SIGHUP, a reader that went
// away, a full disk), its temporary file and spools are removed, but for a resumable
// export's checkpoint and spools, which stay for the next --resume.
import { rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { Command } from '@commander-js/extra-typings';
import type { Context, Globals } from '../../lib/context.js';
import { AtomicFile } from '../../lib/atomic-file.js';
import { sliceWindow, type Window } from '../../lib/dates.js';
import { CheckFailed, CliError, EXIT, Interrupted, UsageError } from '../../lib/errors.js';
import { filterFlags, parseIntFlag } from '../../lib/input.js';
import { windowFlags } from '../../lib/window-input.js';
import { resolveFormat } from '../../lib/output/format.js';
import { startSpinner } from '../../lib/output/spinner.js';
import type { Api } from '../../lib/client/api.js';
import { bindingDifferences, Checkpoint, describeBinding, findCheckpoint, partnerOf, type Binding, type SliceState } from '../../lib/revenue/checkpoint.js';
import { DigestSink } from '../../lib/revenue/digest-sink.js';
import {
  checkSlices,
  EXPORT_PAGE_SIZE,
  exportRevenue,
  ExportAborted,
  MAX_CONCURRENCY,
  type ExportProgress,
  type PageMark,
  type RevenueFilters,
  type SliceReport,
  type SliceStart,
} from '../../lib/revenue/export.js';
import { buildManifest, publicUrl } from '../../lib/revenue/manifest.js';
import { OrderedOutput, type SpoolPlace } from '../../lib/revenue/ordered-output.js';
import { renderChecks } from '../../lib/revenue/report.js';
import { rowFormatter, type ExportFormat } from '../../lib/revenue/row-format.js';
import { describeSlice, planSlices } from '../../lib/revenue/slices.js';
import { sweepStaleWorkDirs, unpredictable, WorkDir } from '../../lib/revenue/workdir.js';
import { describeColumns, SHEETS, xlsxWriter, type TextAmounts } from '../../lib/revenue/xlsx.js';
import { examples, type OptionsOf } from '../command.js';

export const command = () =>
  new Command('export')
    .description('export ledger rows for any date range (windows over 90 days are split for you)')
    .option('--from <date>', 'start: YYYY-MM-DD (UTC day) or RFC 3339 date-time, inclusive')
    .option('--to <date>', 'end: YYYY-MM-DD (whole UTC day) or RFC 3339 date-time, inclusive')
    .option('--token <symbol>', 'only rows of this token')
    .option('--network <network>', 'only rows of this network')
    .option('--out <file>', 'write to this file (atomically) instead of stdout')
    .option('--summary', "check row count and summed share against the service's summary (exit 8 on mismatch)")
    .option('--concurrency <n>', 'pages fetched at once to start with (grows while the service answers cleanly, up to 16)', '4')
    .option('--raw-cells', "CSV: write cells exactly as received (no ' before a cell a spreadsheet would run as a formula)")
    .option('--excel', 'CSV: start with a UTF-8 byte order mark, for Excel')
    .option('--manifest <file>', 'also write a JSON manifest: window, filters, rows, totals per currency, SHA-256 of the output')
    .option('--resume', 'continue an interrupted export to --out from its checkpoint (and keep one if this run stops)')
    .addHelpText(
      'after',
      examples(
        'offramp revenue export --from 2026-10-01 --to 2026-10-31 -o csv --out october.csv --summary',
        'offramp revenue export --from 2026-01-01 --to 2026-12-31 -o xlsx --out 2026.xlsx --manifest 2026.json --resume',
        'offramp revenue export --from 2026-01-01 --to 2026-06-30 -o ndjson',
      ),
    );

export { MAX_CONCURRENCY };

export type Options = OptionsOf<typeof command>;

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export async function run(opts: Options, ctx: Context): Promise<number> {
  const { io } = ctx;
  const format = exportFormat(ctx.globals);
  const window = await windowFlags(opts, ctx);
  const concurrency = parseIntFlag(opts.concurrency ?? 4, '--concurrency', 1, MAX_CONCURRENCY);
  // For benchmarks: the ceiling the limit may grow to (its start alone is the export of old).
  const ceiling = ctx.env.OFFRAMP_EXPORT_MAX_CONCURRENCY ? parseIntFlag(ctx.env.OFFRAMP_EXPORT_MAX_CONCURRENCY, 'OFFRAMP_EXPORT_MAX_CONCURRENCY', 1, MAX_CONCURRENCY) : MAX_CONCURRENCY;
  const filters = filterFlags(opts);
  checkFlags(opts, format, io.stdoutIsTTY);
  const out = opts.out ? resolve(opts.out) : undefined;
  const resumable = Boolean(opts.resume);
  const api = await ctx.api();
  const settings = await ctx.settings();
  keepHeapSmall();

  const binding: Binding | undefined = out === undefined ? undefined : {
    out,
    service: publicUrl(settings.baseUrl),
    partner: partnerOf(settings.apiKey),
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    filters,
    format,
    excel: Boolean(opts.excel),
    raw_cells: Boolean(opts.rawCells),
    summary: Boolean(opts.summary),
    page_size: EXPORT_PAGE_SIZE,
  };
  // Spools of runs that were killed go first (the user's own, older than a day).
  await sweepStaleWorkDirs().catch(() => 0);
  const earlier = binding ? await findCheckpoint(binding.out) : undefined;
  if (resumable && earlier) {
    const differ = bindingDifferences(earlier.binding, binding!);
    if (differ.length > 0) {
      throw new UsageError(
        `--resume: the checkpoint for ${opts.out} belongs to another export (${describeBinding(earlier.binding)}); this one differs in ${differ.join(', ')}`,
        `run the same command as then, or run without --resume to start over`,
      );
    }
  } else if (earlier && !resumable) {
    io.err(`note: an interrupted export to ${opts.out} can be continued with --resume; this run starts over`);
  }
  const slices = resumable && earlier ? slicesOf(earlier.slices, window) : planSlices(window);

  let work: WorkDir | undefined;
  let file: AtomicFile | undefined;
  let committed = false;
  // Whatever ends the process (process.exit on a closed stdout, an uncaught error) still
  // removes what this run made; nothing asynchronous runs any more by then.
  const onExit = () => {
    if (file && !committed) rmSync(file.tempPath, { force: true });
    work?.removeSync();
  };
  process.on('exit', onExit);
  try {
    try {
      work = resumable ? (earlier ? await WorkDir.adopt(earlier.path) : await WorkDir.create()) : undefined;
    } catch (err) {
      throw new UsageError(`--resume: cannot take up the checkpoint for ${opts.out}: ${(err as Error).message}`);
    }
    if (opts.out) {
      try {
        file = await AtomicFile.create(opts.out);
      } catch (err) {
        throw new UsageError(`--out ${opts.out}: cannot write there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      }
    }
    // The directory is made when the first slice has to spool (one, however many ask at once).
    let making: Promise<WorkDir> | undefined;
    const place: SpoolPlace = {
      spoolPath: async (index) => {
        making ??= work ? Promise.resolve(work) : WorkDir.create().then((made) => (work = made));
        return (await making).file(unpredictable(`slice-${index}`));
      },
    };
    const resume = work && earlier ? startsOf(earlier.slices, earlier.path) : undefined;
    const checkpoint = work && binding ? new Checkpoint(work, binding, resume ? earlier!.slices.slice() : slices.map(emptyState)) : undefined;
    await checkpoint?.flush();
    const result = await exportTo({ ctx, api, opts, format, window, slices, filters, concurrency, ceiling, file, place, checkpoint, resume, work });
    if (result.code !== 0 || !result.reports) return result.code;
    committed = true;
    if (earlier && !resumable) await WorkDir.adopt(earlier.path).then((old) => old.remove(), () => undefined);
    return 0;
  } finally {
    process.off('exit', onExit);
    if (file && !committed) await file.abort();
    await work?.remove();
  }
}

type ExportRun = {
  ctx: Context;
  api: Api;
  opts: Options;
  format: ExportFormat;
  window: Window;
  slices: Window[];
  filters: RevenueFilters;
  concurrency: number;
  ceiling: number;
  file: AtomicFile | undefined;
  place: SpoolPlace;
  checkpoint: Checkpoint | undefined;
  resume: SliceStart[] | undefined;
  work: WorkDir | undefined;
};

/** The export proper: the output chain, the run, the checks, the manifest. */
async function exportTo(r: ExportRun): Promise<{ code: number; reports?: SliceReport[] }> {
  const { ctx, opts, file } = r;
  const { io } = ctx;
  const dest: Writable = file?.stream ?? io.stdout;
  const sink = new DigestSink(dest, Boolean(file));
  const xlsx = r.format === 'xlsx' ? await xlsxWriter(sink, ctx.now(), { window: r.window, filters: r.filters }) : undefined;
  const out: Writable = xlsx ?? sink;
  const output = new OrderedOutput(out, rowFormatter(r.format, { rawCells: opts.rawCells, excel: opts.excel }), r.slices.length, {
    spools: r.place,
    spoolAll: Boolean(r.checkpoint),
  });

  // A closed pipe (`| head`), a full disk, Ctrl-C: each stops the export cleanly.
  const stop = new AbortController();
  let outputError: NodeJS.ErrnoException | undefined;
  const onOutputError = (err: NodeJS.ErrnoException) => {
    outputError ??= err;
    stop.abort();
  };
  let signal: NodeJS.Signals | undefined;
  const onSignal = (s: NodeJS.Signals) => {
    signal ??= s;
    stop.abort();
  };
  const streams = [...new Set<Writable>([out, sink, dest])];
  for (const s of streams) s.on('error', onOutputError);
  // While rows go to stdout its errors are this export's to handle: the process-wide
  // handler (src/main.ts) would exit on EPIPE or throw on a full disk before the spools
  // are removed.
  const restoreStdout = file ? () => undefined : takeErrors(io.stdout, onOutputError);
  for (const s of SIGNALS) process.on(s, onSignal);
  const progress = await startProgress(ctx, r.api, r.window, r.filters);
  const started = performance.now();
  const notWritten = opts.out ? `; ${opts.out} was not written` : '';
  const resumeHint = r.checkpoint ? 'run the same command again (with --resume) to continue where it stopped' : undefined;

  let reports: SliceReport[];
  try {
    reports = await exportRevenue({
      api: r.api,
      slices: r.slices,
      filters: r.filters,
      concurrency: r.concurrency,
      maxConcurrency: r.ceiling,
      summary: Boolean(opts.summary),
      totals: Boolean(opts.manifest || r.checkpoint),
      output,
      signal: stop.signal,
      onProgress: progress.update,
      ...(r.resume ? { resume: r.resume } : {}),
      ...(ctx.globals.verbose ? { onThrottled: (i: number, ms: number) => io.err(`  throttled: slice ${i + 1} answered 429 after the client's retries; asking again in ${ms}ms`) } : {}),
      ...(r.checkpoint ? { onPageWritten: (mark: PageMark) => r.checkpoint!.update(mark.index, stateOf(mark, r.slices[mark.index]!)) } : {}),
    });
    if (outputError) throw outputError;
    const checks = opts.summary ? checkSlices(reports) : [];
    const failed = checks.filter((c) => !c.ok);
    if (failed.length > 0) {
      progress.stop();
      renderChecks(io, checks, Boolean(ctx.globals.json));
      const named = failed.map((c) => `slice ${c.report.index + 1} (${describeSlice(c.report.window)}): ${c.problem}`).join('; ');
      // Resuming would assemble the same rows: the checkpoint goes too.
      await r.checkpoint?.close().catch(() => undefined);
      throw new CheckFailed(
        `${failed.length === 1 ? 'a slice does' : `${failed.length} slices do`} not match the service's summary: ${named}${notWritten}`,
        'the ledger may have changed during the export (a window that includes now); export a closed window, or run again',
      );
    }
    // Every byte through the digest: the footer is written, the XLSX finished.
    out.end();
    await finished(out);
    if (file) await commitFile(file, opts.out!);
    await r.checkpoint?.close().catch(() => undefined);
    progress.stop();
    if (opts.manifest) {
      const manifest = buildManifest({
        now: ctx.now(),
        cliVersion: ctx.version,
        baseUrl: (await ctx.settings()).baseUrl,
        window: r.window,
        filters: r.filters,
        format: r.format,
        excel: Boolean(opts.excel),
        rawCells: Boolean(opts.rawCells),
        file: opts.out ? resolve(opts.out) : undefined,
        bytes: sink.bytes,
        sha256: sink.digest(),
        reports,
        ...(opts.summary ? { checks } : {}),
        ...(xlsx ? { textAmounts: xlsx.textAmounts } : {}),
      });
      await writeManifest(opts.manifest, manifest);
    }
    if (xlsx && xlsx.textAmounts.cells > 0) textAmountsNote(ctx, xlsx.textAmounts, opts.out);
    if (opts.summary) renderChecks(io, checks, Boolean(ctx.globals.json));
    closingLine(r, reports, performance.now() - started);
    return { code: 0, reports };
  } catch (err) {
    progress.stop();
    stop.abort();
    for (const s of streams) s.off('error', onOutputError);
    for (const s of streams) s.on('error', () => undefined);
    if (!out.destroyed) out.destroy();
    if (!sink.destroyed) sink.destroy();
    if (r.checkpoint && !(err instanceof CheckFailed)) {
      // Kept for --resume: only pages whose bytes reached their spool are counted.
      await r.checkpoint.flush().catch(() => undefined);
      r.work!.keep = true;
    }
    const cause = outputError ?? (errno(err) ? err : undefined);
    if (signal) throw withHint(new Interrupted('export', signal), notWritten, resumeHint);
    if (cause) {
      // The reader went away (e.g. `| head`): what it wanted it got.
      if (!file && cause.code === 'EPIPE' && outputError) return { code: 0 };
      if (cause.code === 'ENOSPC' || cause.code === 'EDQUOT') {
        throw withHint(new CliError(`no space left on the device (${outputError ? (file ? opts.out : 'stdout') : 'temporary spool'})`, 'DISK_FULL', EXIT.failure), notWritten, resumeHint);
      }
      throw withHint(new CliError(`writing the export failed: ${cause.message}`, 'OUTPUT', EXIT.failure), notWritten, resumeHint);
    }
    if (err instanceof ExportAborted) throw withHint(new CliError('export interrupted', 'INTERRUPTED', EXIT.failure), notWritten, resumeHint);
    if (err instanceof CheckFailed) throw err;
    if (err instanceof CliError) {
      // Keep the error's class (exit code, request id, envelope); say what happened to FILE.
      throw withHint(err, notWritten, resumeHint);
    }
    throw withHint(new CliError((err as Error).message, 'EXPORT_FAILED', EXIT.failure), notWritten, resumeHint);
  } finally {
    for (const s of SIGNALS) process.off(s, onSignal);
    restoreStdout();
  }
}

function errno(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string' && /^E[A-Z]+$/.test((err as NodeJS.ErrnoException).code!);
}

/** Adds "FILE was not written" to the message and, for a resumable export, how to go on. */
function withHint<E extends CliError>(err: E, notWritten: string, resumeHint: string | undefined): E {
  err.message += notWritten;
  if (resumeHint) err.hint = resumeHint;
  return err;
}

async function commitFile(file: AtomicFile, name: string): Promise<void> {
  try {
    await file.commit();
  } catch (err) {
    throw new CliError(`could not finish ${name}: ${(err as Error).message}`, 'OUTPUT', EXIT.failure);
  }
}

async function writeManifest(path: string, manifest: object): Promise<void> {
  try {
    const file = await AtomicFile.create(path);
    file.stream.end(`${JSON.stringify(manifest, null, 2)}\n`);
    await file.commit();
  } catch (err) {
    throw new CliError(`the export was written, but not its manifest ${path}: ${(err as Error).message}`, 'OUTPUT', EXIT.failure);
  }
}

/**
 * Takes the stream's 'error' listeners away for the export's duration and gives them back
 * after; the export's own listener handles its errors meanwhile.
 */
function takeErrors(stream: Writable, listener: (err: NodeJS.ErrnoException) => void): () => void {
  const saved = stream.listeners('error') as ((err: Error) => void)[];
  stream.removeAllListeners('error');
  stream.on('error', listener);
  return () => {
    stream.off('error', listener);
    for (const l of saved) stream.on('error', l);
  };
}

/**
 * A spreadsheet's SUM() skips text cells without a word: say which amounts are text, and
 * where the exact totals are (src/lib/revenue/xlsx.ts).
 */
function textAmountsNote(ctx: Context, text: TextAmounts, out: string | undefined): void {
  const n = text.cells;
  ctx.io.err(
    `note: ${n} amount${n === 1 ? ' is a text cell' : 's are text cells'} in ${out ?? 'the workbook'} (${describeColumns(text.columns)}): ` +
      `more than the 15 significant digits a spreadsheet number holds, kept exactly as text, which SUM() skips; ` +
      `the exact totals are on the "${SHEETS.totals}" sheet`,
  );
}

function closingLine(r: ExportRun, reports: SliceReport[], ms: number): void {
  const { ctx, opts } = r;
  if (!(opts.out || opts.summary || ctx.io.showProgress())) return;
  if (opts.summary && ctx.globals.json) return;
  const rows = reports.reduce((n, x) => n + x.rows, 0);
  const pages = reports.reduce((n, x) => n + x.pages, 0);
  const resumed = r.resume?.reduce((n, s) => n + s.rows, 0) ?? 0;
  const parts = [
    `Exported ${rows.toLocaleString('en-US')} row${rows === 1 ? '' : 's'} (${reports.length} slice${reports.length === 1 ? '' : 's'}, ${pages} page${pages === 1 ? '' : 's'})${opts.out ? ` to ${opts.out}` : ''} in ${(ms / 1000).toFixed(1)} s`,
    ...(resumed > 0 ? [`${resumed.toLocaleString('en-US')} of them from the checkpoint`] : []),
    ...(opts.summary ? ['totals match the service'] : []),
    ...(opts.manifest ? [`manifest ${opts.manifest}`] : []),
  ];
  ctx.io.err(parts.join('; '));
}

/** CSV unless asked otherwise; a table makes no sense for an export. */
function exportFormat(globals: Globals): ExportFormat {
  if (globals.json) return 'json';
  if (!globals.output) return 'csv';
  if (globals.output === 'xlsx') return 'xlsx';
  return resolveFormat(globals, ['csv', 'json', 'ndjson']) as ExportFormat;
}

function checkFlags(opts: Options, format: ExportFormat, stdoutIsTTY: boolean): void {
  if (opts.out !== undefined && opts.out.trim() === '') throw new UsageError('--out: give a file name');
  if (opts.manifest !== undefined && opts.manifest.trim() === '') throw new UsageError('--manifest: give a file name');
  if (opts.manifest && opts.out && resolve(opts.manifest) === resolve(opts.out)) throw new UsageError('--manifest: give a file other than --out');
  if (opts.rawCells && format !== 'csv') throw new UsageError(`--raw-cells applies to CSV only (-o ${format} never alters a cell)`);
  if (opts.excel && format !== 'csv') throw new UsageError(`--excel applies to CSV only (-o ${format})`);
  if (opts.resume && !opts.out) throw new UsageError('--resume needs --out FILE', 'a resumable export is assembled in a file, never on stdout');
  if (format === 'xlsx' && !opts.out && stdoutIsTTY) {
    throw new UsageError('-o xlsx writes a binary file: give --out FILE', 'or redirect stdout to a file (offramp revenue export ... -o xlsx > revenue.xlsx)');
  }
}

function emptyState(window: Window): SliceState {
  return { from: window.from.toISOString(), to: window.to.toISOString(), bytes: 0, cursor: null, done: false, rows: 0, pages: 0, received: 0, share: '0', receivedShare: '0' };
}

/** A page mark as the checkpoint keeps it: the spool by its name in the run directory. */
function stateOf({ index: _, spool, ...counted }: PageMark, window: Window): SliceState {
  return { ...counted, from: window.from.toISOString(), to: window.to.toISOString(), bytes: spool?.bytes ?? 0, ...(spool ? { spool: basename(spool.path) } : {}) };
}

/** The checkpoint's slices as the export takes them up, spools found in `dir`. */
function startsOf(states: SliceState[], dir: string): SliceStart[] {
  return states.map(({ from: _f, to: _t, spool, bytes, ...counted }) => ({ ...counted, ...(spool ? { spool: { path: join(dir, basename(spool)), bytes } } : {}) }));
}

/** The checkpoint's slices, which must tile the window asked for (the binding says it is the same). */
function slicesOf(states: SliceState[], window: Window): Window[] {
  const slices = states.map((s) => ({ from: new Date(s.from), to: new Date(s.to) }));
  const tiles =
    slices.length > 0 &&
    slices[0]!.from.getTime() === window.from.getTime() &&
    slices.at(-1)!.to.getTime() === window.to.getTime() &&
    slices.every((s, i) => i === 0 || s.from.getTime() === slices[i - 1]!.to.getTime() + 1);
  if (!tiles) throw new UsageError('--resume: the checkpoint does not cover the window asked for', 'run without --resume to start over');
  return slices;
}

/**
 * Progress on a terminal's stderr (ora): rows so far (of the total the service's summary
 * gives, once known), slices done of all, rows per second and the time left; nothing
 * otherwise.
 */
async function startProgress(ctx: Context, api: Api, window: Window, filters: RevenueFilters): Promise<{ update: (p: ExportProgress) => void; stop: () => void }> {
  const spinner = await startSpinner(ctx.io, 'exporting…');
  if (!spinner) return { update: () => undefined, stop: () => undefined };
  let total: number | undefined;
  void expectedRows(api, window, filters).then(
    (n) => (total = n),
    () => undefined,
  );
  const started = performance.now();
  let first: number | undefined;
  let last = 0;
  return {
    update: (p) => {
      const now = performance.now();
      if (now - last < 100 && p.slicesDone < p.slices) return;
      last = now;
      first ??= p.resumedRows;
      const rate = (p.rows - first) / Math.max(0.001, (now - started) / 1000);
      const of = total !== undefined ? ` of ~${Math.max(total, p.rows).toLocaleString('en-US')}` : '';
      const left = total !== undefined && rate > 0 ? ` · ETA ${clock(Math.max(0, total - p.rows) / rate)}` : '';
      spinner.text = `exporting: ${p.rows.toLocaleString('en-US')}${of} rows · slices ${p.slicesDone}/${p.slices} · ${Math.round(rate).toLocaleString('en-US')} rows/s${left} · ${p.limit.limit} at once`;
    },
    stop: () => spinner.stop(),
  };
}

/** Rows the service counts in the window: one summary per 90-day window, read alongside the export. */
async function expectedRows(api: Api, window: Window, filters: RevenueFilters): Promise<number> {
  const counts = await Promise.all(
    sliceWindow(window).map(async (w) => {
      const page = await api.revenue.page({ from: w.from.toISOString(), to: w.to.toISOString(), limit: 1, include_summary: true, ...filters });
      return page.summary?.transaction_count ?? 0;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/**
 * Flat memory is a requirement of the export, and V8's defaults size the heap for
 * throughput: under the export's steady allocation its young generation and old-space
 * limit kept growing with the row count although the live heap did not. These two flags
 * keep peak RSS flat at no cost in wall time, which the network sets (measured:
 * BENCHMARKS.md, "Revenue export"). Set at run time, so best-effort: a V8 that holds the
 * growth factor to a minimum ignores it.
 */
function keepHeapSmall(): void {
  setFlagsFromString('--optimize-for-size');
  setFlagsFromString('--semi-space-growth-factor=1');
}
