// IO streams for commands: data to stdout, everything else to stderr; whether each is a
// terminal, whether colour is on, whether prompting is allowed. Tests build one from
// in-memory streams. Three writers: `out` for data (byte for byte), `print` for a line a
// person reads on stdout, `err` for a line on stderr. `print` and `err` make every string
// terminal-safe (output/sanitize.ts says where that boundary runs); `err` also goes through
// the redactor, so a secret the context knows about never reaches the terminal or a log.
import type { Readable, Writable } from 'node:stream';
import { terminalJson, terminalLine, terminalSafe, type Text } from './output/sanitize.js';

type Stdin = Readable & { isTTY?: boolean };

export type IOOptions = {
  /** The stream, or a function opening it on first use (see `IO.stdin`). */
  stdin: Stdin | (() => Stdin);
  /** Whether stdin is a terminal; read from the stream when not given. */
  stdinIsTTY?: boolean;
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
  noColor?: boolean;
  noInput?: boolean;
  /** --wide: tables show every column whole, whatever the terminal's width */
  wide?: boolean;
};

export class IO {
  readonly stdout: IOOptions['stdout'];
  readonly stderr: IOOptions['stderr'];
  readonly stdinIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** Colour on stdout only when stderr is a terminal too; FORCE_COLOR forces, NO_COLOR and --no-color win. */
  readonly colorOut: boolean;
  readonly colorErr: boolean;
  /** The terminal's width without --wide; undefined when piped, so that output stays complete and stable. */
  readonly tableWidth: number | undefined;
  private readonly noInput: boolean;
  private readonly ci: boolean;
  private readonly secrets = new Set<string>();
  private readonly secretPatterns: RegExp[] = [];
  private secretNoticed = false;
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

  /** Opened on first use: creating process.stdin sets up a stream (BENCHMARKS.md) that most commands never read. */
  get stdin(): Stdin {
    return this.openStdin();
  }

  /** Whether the user can be asked a question: stdin and stderr are terminals, no CI, no --no-input. */
  canPrompt(): boolean {
    return this.stdinIsTTY && this.stderrIsTTY && !this.ci && !this.noInput;
  }

  /** Spinners and progress only where a person watches stderr: a terminal, not a CI job's log. */
  showProgress(): boolean {
    return this.stderrIsTTY && !this.ci;
  }

  /**
   * Registers a value that must never be printed on stderr (API key, webhook secret, admin
   * token). One shorter than MIN_SECRET_LENGTH is not: it could be an ordinary word (a key
   * `test`), and blanking every `test` would garble messages (docs/output.md, "Secrets").
   */
  addSecret(value: string | undefined): void {
    if (!value || value.length < MIN_SECRET_LENGTH || this.secrets.has(value)) return;
    this.secrets.add(value);
    for (const form of secretForms(value)) this.secretPatterns.push(formPattern(form));
    // Longest first: a form that contains another is replaced whole.
    this.secretPatterns.sort((a, b) => b.source.length - a.source.length);
  }

  /** `text` with every known secret, in every form (secretForms), replaced by `***`; a JSON line is redacted inside its strings, so it still parses. */
  redact(text: string): string {
    if (!this.holdsSecret(text)) return text;
    const json = jsonLine(text);
    if (json === undefined) return this.redactText(text);
    return JSON.stringify(JSON.parse(json), (_key, v: unknown) => (typeof v === 'string' ? this.redactText(v) : v)) + text.slice(json.length);
  }

  private redactText(text: string): string {
    return this.secretPatterns.reduce((out, pattern) => out.replace(pattern, '***'), text);
  }

  private holdsSecret(text: string): boolean {
    return this.secretPatterns.some((pattern) => {
      pattern.lastIndex = 0;
      return pattern.test(text);
    });
  }

  /**
   * Data: stdout, byte for byte (JSON, NDJSON, CSV; or text a renderer made terminal-safe
   * cell by cell). Never redacted: a script must get what the service sent. When it holds a
   * known secret, stderr says so, once, without printing it.
   */
  out(text: string): void {
    this.noticeSecret(text);
    this.stdout.write(text);
  }

  /** One line of text for a person on stdout: strings made terminal-safe, painted pieces as they are. */
  print(line: Text | readonly Text[]): void {
    this.out(`${terminalLine(line)}\n`);
  }

  /**
   * Everything else: one line on stderr, secrets redacted, strings made terminal-safe whole.
   * A line that is JSON (`--json` errors) keeps parsing: its unsafe characters become JSON escapes.
   */
  err(line: Text | readonly Text[]): void {
    const json = typeof line === 'string' ? jsonLine(line) : undefined;
    const text = json !== undefined ? terminalJson(this.redact(json)) : this.terminalText(line);
    this.stderr.write(`${text}\n`);
  }

  /** A line as `err` would write it, for a spinner that writes to stderr itself. */
  terminalText(line: Text | readonly Text[]): string {
    return this.redact(terminalLine(line));
  }

  private noticeSecret(text: string): void {
    if (this.secretNoticed || !this.holdsSecret(text)) return;
    this.secretNoticed = true;
    this.err('warning: the output holds a key or secret this run knows (the service sent it back); stdout shows the data as sent, stderr masks it');
  }
}

/** Secrets shorter than this are not redacted (docs/output.md, "Secrets"). */
export const MIN_SECRET_LENGTH = 8;

/** The ways a secret can be spelled in a message: as is, JSON-escaped, URL-encoded, as a URL password, terminal-safe. */
function secretForms(secret: string): string[] {
  const forms = [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2), terminalSafe(secret)];
  try {
    const url = new URL('http://host/');
    url.password = secret;
    forms.push(url.password);
  } catch {
    // No URL can carry it; nothing to add.
  }
  return [...new Set(forms)];
}

/** A global pattern for one form; a percent escape matches in either case (`%2F`, `%2f`). */
function formPattern(form: string): RegExp {
  const source = form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%([0-9A-F])([0-9A-F])/g, (_m, a: string, b: string) => `%[${a}${a.toLowerCase()}][${b}${b.toLowerCase()}]`);
  return new RegExp(source, 'g');
}

/** `line` without its trailing newline when it is a JSON document; undefined otherwise. */
function jsonLine(line: string): string | undefined {
  const trimmed = line.trimEnd();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    JSON.parse(trimmed);
    return trimmed;
  } catch {
    return undefined;
  }
}

function colorWanted(opts: IOOptions, isTTY: boolean): boolean {
  if (opts.noColor) return false;
  const env = opts.env;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY;
}
