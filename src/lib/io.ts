// IO streams for commands: data to stdout, everything else to stderr; whether each is a
// terminal, whether colour is on, whether prompting is allowed. Tests build one from
// in-memory streams (see `captureIO`). Every stderr write goes through the redactor, so a
// secret the context knows about can never reach the terminal or a log.
import type { Readable, Writable } from 'node:stream';

type Stdin = Readable & { isTTY?: boolean };

export type IOOptions = {
  /** The stream, or a function opening it on first use (see `IO.stdin`). */
  stdin: Stdin | (() => Stdin);
  /** Whether stdin is a terminal; read from the stream when not given. */
  stdinIsTTY?: boolean;
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
  /** --no-color given */
  noColor?: boolean;
  /** --no-input given */
  noInput?: boolean;
  /** --wide given: tables show every column whole, whatever the terminal's width */
  wide?: boolean;
};

export class IO {
  readonly stdout: IOOptions['stdout'];
  readonly stderr: IOOptions['stderr'];
  readonly stdinIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /**
   * Colour on stderr (messages) when it is a terminal; on stdout (tables) when both stdout and
   * stderr are; FORCE_COLOR forces, NO_COLOR and --no-color win.
   */
  readonly colorOut: boolean;
  readonly colorErr: boolean;
  /**
   * The width tables must fit: the terminal's, on a terminal without --wide; undefined
   * (no limit) when stdout is piped, so that output stays complete and stable.
   */
  readonly tableWidth: number | undefined;
  private readonly noInput: boolean;
  private readonly ci: boolean;
  private readonly secrets = new Set<string>();
  private readonly openStdin: () => Stdin;

  constructor(opts: IOOptions) {
    const stdin = opts.stdin;
    let opened: Stdin | undefined;
    this.openStdin = typeof stdin === 'function' ? () => (opened ??= stdin()) : () => stdin;
    this.stdout = opts.stdout;
    this.stderr = opts.stderr;
    this.stdinIsTTY = opts.stdinIsTTY ?? this.stdin.isTTY === true;
    this.stdoutIsTTY = Boolean(opts.stdout.isTTY);
    this.stderrIsTTY = Boolean(opts.stderr.isTTY);
    this.noInput = Boolean(opts.noInput);
    this.tableWidth = this.stdoutIsTTY && !opts.wide ? opts.stdout.columns || 80 : undefined;
    this.ci = Boolean(opts.env.CI) && opts.env.CI !== 'false' && opts.env.CI !== '0';
    // The contract: colour only when stderr is a terminal; and never in piped data.
    this.colorOut = colorWanted(opts, this.stdoutIsTTY && this.stderrIsTTY);
    this.colorErr = colorWanted(opts, this.stderrIsTTY);
  }

  /**
   * stdin, opened on first use: creating process.stdin sets up a stream (a measurable
   * cost, BENCHMARKS.md) that most commands never read.
   */
  get stdin(): Stdin {
    return this.openStdin();
  }

  /** Whether the user can be asked a question: stdin and stderr are terminals, no CI, no --no-input. */
  canPrompt(): boolean {
    return this.stdinIsTTY && this.stderrIsTTY && !this.ci && !this.noInput;
  }

  /** Spinners and progress only where a person watches stderr. */
  showProgress(): boolean {
    return this.stderrIsTTY;
  }

  /** Registers a value that must never be printed (API key, webhook secret). */
  addSecret(value: string | undefined): void {
    if (value && value.length >= 4) this.secrets.add(value);
  }

  /**
   * `text` with every secret replaced by `***` where it stands as a whole value: not inside
   * a longer word (a key `test` leaves the reference `test-order-1` alone). A line that is
   * JSON is redacted inside its strings, so it still parses (`--json` errors).
   */
  redact(text: string): string {
    if (this.secrets.size === 0) return text;
    const trimmed = text.trimEnd();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        const value: unknown = JSON.parse(trimmed);
        return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? this.redactWords(v) : v)) + text.slice(trimmed.length);
      } catch {
        // Not JSON after all: redacted as text.
      }
    }
    return this.redactWords(text);
  }

  private redactWords(text: string): string {
    let out = text;
    for (const secret of this.secrets) {
      if (!out.includes(secret)) continue;
      out = out.replace(new RegExp(`(?<![A-Za-z0-9_-])${escapeRegExp(secret)}(?![A-Za-z0-9_-])`, 'g'), '***');
    }
    return out;
  }

  /** Data: stdout, as is (the service never sends a key back; redaction must not alter data). */
  out(text: string): void {
    this.stdout.write(text);
  }

  /** Everything else: stderr, one line, secrets redacted. */
  err(line: string): void {
    this.stderr.write(this.redact(line.endsWith('\n') ? line : `${line}\n`));
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function colorWanted(opts: IOOptions, isTTY: boolean): boolean {
  if (opts.noColor) return false;
  const env = opts.env;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY;
}
