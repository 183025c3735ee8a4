// `--jq EXPR`: a command's JSON output filtered in place, as gh's `--jq` (docs/output.md,
// "Filtering JSON with --jq"). The filter is jq itself, compiled to WebAssembly (jq-wasm,
// one JavaScript file with nothing native and nothing fetched), loaded only when a run
// asks for it. Strings come out raw, as `jq -r` and gh print them.
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { CliError, EXIT, UsageError } from '../errors.js';
import { terminalSafe } from './sanitize.js';

type Jq = typeof import('jq-wasm');
let loaded: Promise<Jq> | undefined;
// jq-wasm is CommonJS: imported from ESM (vitest, tsx) its functions are the namespace's own,
// from the CommonJS dist/ they sit under `default`.
const jq = (): Promise<Jq> => (loaded ??= import('jq-wasm').then((m) => ('raw' in m ? m : (m as { default: Jq }).default)));

/** jq's message, on one line and without its `jq: error…:` prefix. */
function message(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const first = text.split('\n')[0] ?? text;
  return first.replace(/^jq: error(?: \(at [^)]*\))?: /, '').trim();
}

/** Refuses an expression jq cannot compile, before the command sends anything. */
export async function checkJq(expr: string): Promise<void> {
  try {
    // -n: no input; a filter that fails on null (`.[]`) still compiles, and only that is asked here.
    await (await jq()).raw('null', `try (${expr}) catch empty`, ['-n']);
  } catch (err) {
    throw new UsageError(`--jq: ${message(err)}`, 'the expression is jq syntax (https://jqlang.org/manual/), quoted for the shell');
  }
}

/** `input` (one JSON document, or several as NDJSON) through `expr`; each result on its own line. */
export async function runJq(expr: string, input: string): Promise<string> {
  try {
    const out = await (await jq()).raw(input, expr, ['-r']);
    return out === '' ? '' : `${out}\n`;
  } catch (err) {
    throw new CliError(`--jq: ${message(err)}`, 'JQ', EXIT.failure, 'run without --jq to see the JSON the expression was given');
  }
}

/**
 * A stdout that hands the command's JSON through `expr`: a whole document at `finish()`, or
 * NDJSON line by line, so a long-running command still prints as it goes. On a terminal each
 * result line is made safe; piped, it is as jq wrote it.
 */
export class JqFilter {
  readonly stream: Writable;
  private held = '';

  constructor(
    private readonly expr: string,
    private readonly lineByLine: boolean,
    private readonly out: Writable & { isTTY?: boolean },
  ) {
    this.stream = new Writable({
      decodeStrings: false,
      write: (chunk: string | Buffer, _encoding, done) => {
        this.held += String(chunk);
        if (!this.lineByLine) return done();
        const end = this.held.lastIndexOf('\n');
        if (end < 0) return done();
        const lines = this.held.slice(0, end + 1);
        this.held = this.held.slice(end + 1);
        this.emit(lines).then(() => done(), done);
      },
    });
  }

  /** Filters and prints what is held; call once the command has written everything. */
  async finish(): Promise<void> {
    await new Promise<void>((resolve, reject) => this.stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
    const rest = this.held;
    this.held = '';
    if (rest.trim() !== '') await this.emit(rest);
  }

  private async emit(input: string): Promise<void> {
    const text = await runJq(this.expr, input);
    // A slow reader (a pager, a full pipe) holds the command back instead of jq's lines piling up here.
    // A tab stays a tab on a terminal: it moves nothing but the cursor along the line, and it is
    // what `@tsv` separates with (jq escapes a tab inside a field itself).
    const shown = this.out.isTTY ? text.split('\n').map((line) => line.split('\t').map(terminalSafe).join('\t')).join('\n') : text;
    if (!this.out.write(shown)) await once(this.out, 'drain');
  }
}
