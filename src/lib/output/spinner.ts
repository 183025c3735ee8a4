// Spinners (ora) on stderr, only where a person watches a terminal. ora is loaded on
// first use, never on the startup path.
import type { Ora } from 'ora';
import type { IO } from '../io.js';

/**
 * Whether a spinner may run: stderr is a terminal that reports a width. ora divides by
 * the width, so a pseudo-terminal reporting 0 columns (script(1), `docker run -t` before
 * a resize) would send it into an endless loop of clearing lines.
 */
export function canSpin(io: IO): boolean {
  const columns = (io.stderr as { columns?: number }).columns ?? 0;
  return io.showProgress() && columns > 0;
}

/** A maker of started spinners, or undefined where spinners are not wanted. */
export async function spinnerFactory(io: IO): Promise<((text: string) => Ora) | undefined> {
  if (!canSpin(io)) return undefined;
  const { default: ora } = await import('ora');
  // discardStdin would put stdin in raw mode and swallow Ctrl+C; no spinner reads stdin.
  // ora writes to stderr itself: its text takes the form IO.err would give it (terminal-safe,
  // secrets masked), as must any text set on it later (IO.terminalText).
  return (text) => ora({ text: io.terminalText(text), stream: io.stderr, isEnabled: true, discardStdin: false, color: 'cyan' }).start();
}

export async function startSpinner(io: IO, text: string): Promise<Ora | undefined> {
  return (await spinnerFactory(io))?.(text);
}
