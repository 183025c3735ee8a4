// Spinners (ora) on stderr, only where a person watches a terminal. ora is loaded on
// first use, never on the startup path.
import type { Ora } from 'ora';
import type { IO } from '../io.js';

/**
 * A maker of started spinners, or undefined where spinners are not wanted: unless stderr is
 * a terminal that reports a width. ora divides by the width, so a pseudo-terminal reporting
 * 0 columns (script(1), `docker run -t` before a resize) would send it into an endless loop
 * of clearing lines.
 */
export async function spinnerFactory(io: IO): Promise<((text: string) => Ora) | undefined> {
  if (!io.showProgress() || !((io.stderr as { columns?: number }).columns ?? 0)) return undefined;
  const { default: ora } = await import('ora');
  // discardStdin would put stdin in raw mode and swallow Ctrl+C; no spinner reads stdin.
  // ora writes to stderr itself: its text takes the form IO.err would give it (terminal-safe,
  // secrets masked), as must any text set on it later (IO.terminalText).
  return (text) => ora({ text: io.terminalText(text), stream: io.stderr, isEnabled: true, discardStdin: false, color: 'cyan' }).start();
}

export async function startSpinner(io: IO, text: string): Promise<Ora | undefined> {
  return (await spinnerFactory(io))?.(text);
}

/** What a long run is doing (docs/output.md, "Progress"); every method does nothing where no spinner runs. */
export type Progress = {
  /** A new step: what is being done now, counted from 0 (of `total`, when known). */
  step(what: string, total?: number): void;
  /** `n` done so far in this step. */
  count(n: number): void;
  /** Stops and clears the line, before the data or an error is printed. Safe to call again. */
  stop(): void;
};

/** What decides whether a run shows progress: its IO, and whether it speaks JSON or goes through jq. */
export type ProgressContext = { io: IO; globals: { json?: boolean; jq?: boolean } };

/** The count is redrawn at most this often: setting ora's text measures it. */
const REDRAW_MS = 100;
const NOTHING: Progress = { step: () => undefined, count: () => undefined, stop: () => undefined };

/**
 * Never with --json, whose stderr a program reads, nor with --jq: with -o ndjson its rows reach
 * a terminal through the filter, which is no terminal, so nothing would stop the count first. Ctrl-C and SIGTERM need nothing here: on
 * the way out ora's cursor restorer writes to stderr, and ora clears its line before any write.
 */
export async function startProgress(ctx: ProgressContext, what: string, total?: number): Promise<Progress> {
  const spinner = ctx.globals.json || ctx.globals.jq ? undefined : await startSpinner(ctx.io, progressText(what, 0, total));
  if (!spinner) return NOTHING;
  let step = { what, total };
  let shown = 0;
  const show = (n: number) => {
    spinner.text = ctx.io.terminalText(progressText(step.what, n, step.total));
    spinner.render();
    shown = performance.now();
  };
  return {
    step(what, total) {
      step = { what, total };
      show(0);
    },
    count(n) {
      // The first of a step, the last, and otherwise at most every REDRAW_MS.
      if (n === 1 || n === step.total || performance.now() - shown >= REDRAW_MS) show(n);
    },
    stop() {
      if (spinner.isSpinning) spinner.stop();
    },
  };
}

const grouped = (n: number) => n.toLocaleString('en-US');

function progressText(what: string, n: number, total: number | undefined): string {
  if (total !== undefined) return `${what} ${grouped(n)}/${grouped(total)}`;
  return n > 0 ? `${what}… ${grouped(n)} so far` : `${what}…`;
}

/**
 * `items` as they come, counted. `printed`: each item goes to stdout as it comes, so on a
 * terminal the count stops before the first one: a count drawn among the rows would tear them.
 */
export async function* counted<T>(ctx: ProgressContext, what: string, items: AsyncIterable<T> | Iterable<T>, printed = false): AsyncGenerator<T> {
  const progress = await startProgress(ctx, what);
  const untilFirst = printed && ctx.io.stdoutIsTTY;
  let n = 0;
  try {
    for await (const item of items) {
      if (untilFirst) progress.stop();
      else progress.count(++n);
      yield item;
    }
  } finally {
    progress.stop();
  }
}
