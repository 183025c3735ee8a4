// offramp revenue export: the flags, the checks before any request, and how a run ends; the
// pipeline is src/lib/revenue/export.ts. --summary's mismatch leaves FILE unwritten: an export
// that fails its check must not look finished. However the export ends, its temporary file is
// removed; one to FILE that did not finish keeps its checkpoint and spools
// (src/lib/revenue/resume.ts; docs/finance.md, "Nothing left behind, and --resume").
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { Command } from '@commander-js/extra-typings';
import type { Context, Globals } from '../../lib/context.js';
import { AtomicFile, writeAside } from '../../lib/fs/atomic.js';
import type { Window } from '../../lib/input/dates.js';
import { ApiError, CheckFailed, CliError, EXIT, Interrupted, outputFailed, UsageError } from '../../lib/errors.js';
import { filterFlags, parseIntFlag } from '../../lib/input/values.js';
import { windowFlags } from '../../lib/input/window.js';
import { checkZone, nothingMatched, stillOpenNote, zonedWindow } from '../../lib/revenue/periods.js';
import { formatOfFile } from '../../lib/output/format.js';
import { startSpinner } from '../../lib/output/spinner.js';
import { FULL_PAGE, type Api, type RevenueFilters } from '../../lib/client/api.js';
import {
  checkSlices,
  DEFAULT_CONCURRENCY,
  exportRevenue,
  MAX_CONCURRENCY,
  refusedFor,
  saveSlice,
  type ExportProgress,
  type ExportResult,
  type KeptSlice,
  type SliceTally,
} from '../../lib/revenue/export.js';
import { buildManifest } from '../../lib/revenue/manifest.js';
import { publicUrl } from '../../lib/client/url.js';
import { renderChecks } from '../../lib/revenue/tables.js';
import { Grouping } from '../../lib/revenue/groups.js';
import { tapRows } from '../../lib/revenue/rows.js';
import { bindingDifferences, continuingCommand, describeBinding, partnerOf, readCheckpoint, ResumeDir, type Binding } from '../../lib/revenue/resume.js';
import { EXPORT_FORMATS, formatStage, type ExportFormat } from '../../lib/revenue/row-format.js';
import { serviceSummaries } from '../../lib/revenue/service-summary.js';
import { describeSlice, planSlices } from '../../lib/revenue/slices.js';
import { describeColumns, MAX_NUMBER_DIGITS, SHEETS, xlsxStage } from '../../lib/revenue/xlsx.js';
import { humanDuration } from '../../lib/output/time.js';
import { examples, type OptionsOf } from '../command.js';

export const command = () =>
  new Command('export')
    .description('export ledger rows for any date range (windows over 90 days are split for you)')
    .option('--from <date>', 'start: YYYY-MM-DD (a day in --tz) or RFC 3339, inclusive')
    .option('--to <date>', 'end: YYYY-MM-DD (a day in --tz) or RFC 3339, inclusive')
    .option('--tz <zone>', 'IANA time zone of days and months (e.g. Africa/Lagos)', 'UTC')
    .option('--token <symbol>', 'only rows of this token')
    .option('--network <network>', 'only rows of this network')
    .option('--out <file>', 'write to this file (atomically) instead of stdout; its name says the format (.csv, .json, .ndjson, .xlsx)')
    .option('--summary', "check row count and summed share against the service's summary (exit 8 on mismatch)")
    .option('--concurrency <n>', 'pages fetched at once (1 to 16)', String(DEFAULT_CONCURRENCY))
    .option('--raw-cells', "CSV: write cells exactly as received (no ' before a cell a spreadsheet would run as a formula)")
    .option('--excel', 'CSV: start with a UTF-8 byte order mark, for Excel')
    .option('--manifest <file>', 'also write a JSON manifest: window, filters, rows, totals per currency, SHA-256 of the output')
    .option('--resume', 'continue an interrupted export to --out from its checkpoint')
    .addHelpText(
      'after',
      examples(
        'offramp revenue export --from 2026-10-01 --to 2026-10-31 --out october.csv --summary',
        'offramp revenue export --from 2026-01-01 --to 2026-12-31 --out 2026.xlsx --manifest 2026.json --resume',
        'offramp revenue export --from 2026-10-01 --to 2026-10-31 --tz Africa/Lagos -o xlsx --out october.xlsx',
        'offramp revenue export --from 2026-01-01 --to 2026-06-30 -o ndjson',
      ),
    );

export type Options = OptionsOf<typeof command>;

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export async function run(opts: Options, ctx: Context): Promise<number> {
  const { io } = ctx;
  const format = exportFormat(ctx.globals, opts.out);
  const zone = checkZone(opts.tz ?? 'UTC');
  const window = zonedWindow(await windowFlags(opts, ctx), opts, zone);
  const concurrency = parseIntFlag(opts.concurrency ?? DEFAULT_CONCURRENCY, '--concurrency', 1, MAX_CONCURRENCY);
  const filters = filterFlags(opts);
  checkFlags(opts, format, io.stdoutIsTTY);
  const out = opts.out ? resolve(opts.out) : undefined;
  const api = await ctx.api();
  const settings = await ctx.settings();
  // Flat memory is a requirement of the export. Under its steady allocation (every page
  // parsed, checked, spooled, read back, formatted) V8's defaults, which size the heap for
  // throughput, let the young generation and the old-space limit grow with the export's
  // length although the live heap stays small; --optimize-for-size keeps peak RSS flat, and
  // the export waits on the network, not the collector (BENCHMARKS.md, "Revenue export").
  // Set at run time, so best-effort.
  setFlagsFromString('--optimize-for-size');
  const open = stillOpenNote(window, ctx.now(), zone);
  if (open) io.err(`warning: ${open}`);
  const binding: Binding = {
    service: publicUrl(settings.baseUrl),
    partner: partnerOf(settings.apiKey),
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    tz: zone,
    filters,
    format,
    excel: Boolean(opts.excel),
    raw_cells: Boolean(opts.rawCells),
    summary: Boolean(opts.summary),
    page_size: FULL_PAGE,
  };
  const earlier = out ? await readCheckpoint(out) : undefined;
  if (opts.resume && earlier) {
    const differ = bindingDifferences(earlier.binding, binding);
    if (differ.length > 0) {
      throw new UsageError(
        `--resume: the checkpoint for ${opts.out} belongs to another export (${describeBinding(earlier.binding)}); this one differs in ${differ.join(', ')}`,
        `run the same command as then, or run without --resume to start over`,
      );
    }
  } else if (earlier) {
    io.err(
      bindingDifferences(earlier.binding, binding).length === 0
        ? `note: an interrupted export to ${opts.out} could have been continued with --resume; this run starts over, replacing its checkpoint`
        : `note: this run replaces the checkpoint of another export to ${opts.out} (${describeBinding(earlier.binding)})`,
    );
  }
  const slices = planSlices(window);

  let file: AtomicFile | undefined;
  let resumeDir: ResumeDir | undefined;
  const kept = new Map<number, KeptSlice>();
  // Whatever ends the process (process.exit on a closed stdout, an uncaught error) still
  // removes the temporary file (gone already once renamed into place); nothing
  // asynchronous runs any more by then.
  const onExit = () => {
    if (file) rmSync(file.tempPath, { force: true });
  };
  process.on('exit', onExit);
  try {
    if (out) {
      try {
        file = await AtomicFile.create(opts.out!);
      } catch (err) {
        throw new UsageError(`--out ${opts.out}: cannot write there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      }
      // Every export to a file keeps a checkpoint as it goes, so that one stopped midway can
      // be continued whether or not --resume was given.
      try {
        resumeDir = await ResumeDir.take(out);
        for (const saved of opts.resume ? (earlier?.slices ?? []) : []) {
          const slice = slices[saved.index];
          if (slice?.from.toISOString() !== saved.from || slice.to.toISOString() !== saved.to) continue;
          const spool = await resumeDir.saved(saved.index, saved.bytes);
          if (spool) kept.set(saved.index, { saved, spool });
        }
        // From here on the checkpoint lists only the slices this run keeps, so no spool it
        // lists is ever written again.
        await resumeDir.save({ binding, slices: [...kept.values()].map((k) => k.saved) });
      } catch (err) {
        throw new UsageError(`--out ${opts.out}: cannot keep a checkpoint beside it: ${(err as Error).message}`);
      }
    }
    return await exportTo({ ctx, api, opts, window, slices, concurrency, file, resumeDir, kept, binding });
  } finally {
    process.off('exit', onExit);
    // Once committed, abort leaves the file in place.
    await file?.abort();
    await Promise.allSettled([...kept.values()].map((k) => k.spool.close()));
    await resumeDir?.release();
  }
}

type ExportRun = {
  ctx: Context;
  api: Api;
  opts: Options;
  window: Window;
  slices: Window[];
  concurrency: number;
  file: AtomicFile | undefined;
  resumeDir: ResumeDir | undefined;
  kept: Map<number, KeptSlice>;
  binding: Binding;
};

/** The export proper: the pipeline, the check, the file put in place, the manifest; how it ended. */
async function exportTo(r: ExportRun): Promise<number> {
  const { ctx, opts, file, resumeDir } = r;
  const { io } = ctx;
  const dest = file?.stream ?? io.stdout;
  // The rows written, summed by calendar month of --tz and token as they pass (a resumed
  // export writes the finished slices' rows again): --summary's table, the workbook's
  // totals sheets and the manifest's totals.
  const sums = new Grouping({ by: ['month', 'token'], zone: r.binding.tz, window: r.window });
  const xlsx = r.binding.format === 'xlsx' ? await xlsxStage(ctx.now(), { window: r.window, filters: r.binding.filters, sums }) : undefined;
  const stage: Duplex = xlsx ?? formatStage(r.binding.format as Exclude<ExportFormat, 'xlsx'>, { rawCells: opts.rawCells, excel: opts.excel, terminal: !file && io.stdoutIsTTY });

  // Ctrl-C, SIGTERM and SIGHUP stop the export; an output that fails (a full disk) fails it.
  // (A reader that closed stdout ends the process at once: src/main.ts.)
  const stop = new AbortController();
  let outputError: NodeJS.ErrnoException | undefined;
  const onOutputError = (err: NodeJS.ErrnoException) => (outputError ??= err);
  let signal: NodeJS.Signals | undefined;
  const onSignal = (s: NodeJS.Signals) => {
    signal ??= s;
    stop.abort(new Interrupted('export', s));
  };
  dest.on('error', onOutputError);
  for (const s of SIGNALS) process.on(s, onSignal);
  // One API for the run, stopped with it: an ignored filter is told once, and Ctrl-C lets go
  // of every request in flight (the progress bar's count too).
  const api = r.api.withStop(stop.signal);
  const progress = await startProgress(ctx, api, r.window, r.binding.filters);
  const started = performance.now();
  const notWritten = opts.out ? `; ${opts.out} was not written` : '';
  const resumeHint = resumeDir
    ? `continue it with: ${continuingCommand(r.binding, ctx.globals, { out: resolve(opts.out!), manifest: opts.manifest ? resolve(opts.manifest) : undefined })}`
    : 'nothing is kept of an export to stdout: run it again (with --out FILE, an export that stops can be continued)';
  const finishedSlices = [...r.kept.values()].map((k) => k.saved);

  try {
    const result = await exportRevenue({
      api,
      slices: r.slices,
      filters: r.binding.filters,
      concurrency: r.concurrency,
      now: () => ctx.now().getTime(),
      summary: Boolean(opts.summary),
      format: opts.summary || opts.manifest || xlsx ? tapRows(stage, sums.add) : stage,
      dest,
      endDest: Boolean(file),
      kept: r.kept,
      signal: stop.signal,
      onProgress: progress.update,
      ...(resumeDir
        ? {
            spool: (index: number) => resumeDir.spool(index),
            onSliceDone: async (tally: SliceTally, bytes: number) => {
              finishedSlices.push(saveSlice(tally, bytes));
              await resumeDir.save({ binding: r.binding, slices: finishedSlices });
            },
          }
        : {}),
    });
    const checks = opts.summary ? checkSlices(result.tallies) : [];
    const failed = checks.filter((c) => !c.ok);
    if (failed.length > 0) {
      progress.stop();
      renderChecks(io, checks, Boolean(ctx.globals.json), sums);
      const named = failed.map((c) => `slice ${c.tally.index + 1} (${describeSlice(c.tally.window)}): ${c.problem}`).join('; ');
      // Resuming would assemble the same rows: the checkpoint goes too.
      await resumeDir?.remove();
      throw new CheckFailed(
        `${failed.length === 1 ? 'a slice does' : `${failed.length} slices do`} not match the service's summary: ${named}${notWritten}`,
        'the ledger may have changed during the export (a window that includes now); export a closed window, or run again',
      );
    }
    await file?.commit().catch((err: Error) => {
      throw new CliError(`could not finish ${opts.out}: ${err.message}`, 'OUTPUT', EXIT.failure);
    });
    await resumeDir?.remove();
    progress.stop();
    if (opts.manifest) {
      const manifest = buildManifest({
        now: ctx.now(),
        cliVersion: ctx.version,
        binding: r.binding,
        file: opts.out ? resolve(opts.out) : undefined,
        result,
        sums,
        ...(opts.summary ? { checks } : {}),
        ...(xlsx ? { textAmounts: xlsx.textAmounts } : {}),
      });
      await writeAside(opts.manifest, `${JSON.stringify(manifest, null, 2)}\n`).catch((err: Error) => {
        throw new CliError(`the export was written, but not its manifest ${opts.manifest}: ${err.message}`, 'OUTPUT', EXIT.failure);
      });
    }
    if (xlsx && xlsx.textAmounts.cells > 0) {
      // A spreadsheet's SUM() skips text cells without a word: say which amounts are text,
      // and where the exact totals are (src/lib/revenue/xlsx.ts).
      const n = xlsx.textAmounts.cells;
      io.err(
        `note: ${n} amount${n === 1 ? ' is a text cell' : 's are text cells'} in ${opts.out ?? 'the workbook'} (${describeColumns(xlsx.textAmounts.columns)}): ` +
          `more than the ${MAX_NUMBER_DIGITS} significant digits a spreadsheet number holds, kept exactly as text, which SUM() skips; ` +
          `the exact totals are on the "${SHEETS.totals}" sheet`,
      );
    }
    if (opts.summary) renderChecks(io, checks, Boolean(ctx.globals.json), sums);
    closingLine(r, result, performance.now() - started);
    if (result.rows === 0) io.err(`note: ${nothingMatched(r.window, r.binding.filters)}`);
    return 0;
  } catch (err) {
    progress.stop();
    if (signal) throw withHint(new Interrupted('export', signal), notWritten, resumeHint);
    // A system call's failure (an errno code) is the output's or the spools'.
    const cause = outputError ?? (err instanceof Error && /^E[A-Z]+$/.test(String((err as NodeJS.ErrnoException).code)) ? (err as NodeJS.ErrnoException) : undefined);
    if (cause) {
      // The reader went away (e.g. `| head`): what it wanted it got.
      if (!file && cause.code === 'EPIPE' && outputError) return 0;
      throw withHint(outputFailed(cause, outputError ? (opts.out ?? 'stdout') : 'spools'), notWritten, resumeHint);
    }
    if (err instanceof CheckFailed) throw err;
    if (err instanceof ApiError && err.status === 429) {
      const waited = refusedFor.get(err);
      const attempts = ctx.globals.retries + 1;
      err.message += ` (a page was refused at ${attempts === 1 ? 'its only attempt' : `all ${attempts} attempts`}${waited !== undefined ? `, over ${humanDuration(waited)} of waiting` : ''}: lower --concurrency for a tighter limit, or raise --retries)`;
    }
    // Keep the error's class (exit code, request id, envelope); say what happened to FILE.
    if (err instanceof CliError) throw withHint(err, notWritten, resumeHint);
    throw withHint(new CliError((err as Error).message, 'EXPORT_FAILED', EXIT.failure), notWritten, resumeHint);
  } finally {
    for (const s of SIGNALS) process.off(s, onSignal);
    dest.off('error', onOutputError);
  }
}

/** Adds "FILE was not written" to the message, and how to go on. */
function withHint<E extends CliError>(err: E, notWritten: string, resumeHint: string): E {
  err.message += notWritten;
  err.hint = resumeHint;
  return err;
}

function closingLine(r: ExportRun, { tallies, rows, pages }: ExportResult, ms: number): void {
  const { ctx, opts } = r;
  if (!(opts.out || opts.summary || ctx.io.showProgress())) return;
  if (opts.summary && ctx.globals.json) return;
  const resumed = [...r.kept.values()].reduce((n, k) => n + k.saved.rows, 0);
  const parts = [
    `Exported ${rows.toLocaleString('en-US')} row${rows === 1 ? '' : 's'} (${tallies.length} slice${tallies.length === 1 ? '' : 's'}, ${pages} page${pages === 1 ? '' : 's'})${opts.out ? ` to ${opts.out}` : ''} in ${(ms / 1000).toFixed(1)} s`,
    ...(resumed > 0 ? [`${resumed.toLocaleString('en-US')} of them from the checkpoint`] : []),
    ...(opts.summary ? ['totals match the service'] : []),
    ...(opts.manifest ? [`manifest ${opts.manifest}`] : []),
  ];
  ctx.io.err(parts.join('; '));
}

/** The format --out's name says; else -o's; else CSV (a table makes no sense for an export). */
function exportFormat(globals: Globals, out: string | undefined): ExportFormat {
  const given = globals.json ? 'json' : globals.output;
  const named = out ? formatOfFile(out, given, EXPORT_FORMATS) : undefined;
  if (named) return named;
  // -o was checked against this command's formats before run (cli.ts, COMMAND_FORMATS).
  return (given ?? 'csv') as ExportFormat;
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

/**
 * Progress on a terminal's stderr (ora): rows so far (of the total the service's summary
 * gives, once known), slices done of all, rows per second and the time left; nothing
 * otherwise.
 */
async function startProgress(ctx: Context, api: Api, window: Window, filters: RevenueFilters): Promise<{ update: (p: ExportProgress) => void; stop: () => void }> {
  const spinner = await startSpinner(ctx.io, 'exporting…');
  if (!spinner) return { update: () => undefined, stop: () => undefined };
  let total: number | undefined;
  // Rows the service counts in the window, read alongside the export.
  void serviceSummaries(api, window, filters).then(
    (summaries) => (total = summaries.reduce((n, s) => n + s.transaction_count, 0)),
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
      spinner.text = `exporting: ${p.rows.toLocaleString('en-US')}${of} rows · slices ${p.slicesDone}/${p.slices} · ${Math.round(rate).toLocaleString('en-US')} rows/s${left}`;
    },
    stop: () => spinner.stop(),
  };
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}
