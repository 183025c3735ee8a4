// `main(argv, streams)`: parses the command line, builds the context, runs one command, and
// maps whatever it threw to one line on stderr and an exit code. It never calls process.exit,
// so tests can run it in process. Only commander is loaded here, and the module of the
// command the line names (src/commands/load.ts).
import type { CommandUnknownOpts, OutputConfiguration } from '@commander-js/extra-typings';
import { CommanderError } from 'commander';
import { readsNoSecret, type Runner } from './commands/command.js';
import { bareGroup, commandMeant, commandWord, secretFlagWarnings } from './commands/globals.js';
import { loadProgram } from './commands/load.js';
import { DEFAULT_HELP_WIDTH, helpCommandAsFlag } from './help/snapshot.js';
import { CliError, Declined, errorEnvelope, EXIT, UsageError, type ExitCode } from './lib/errors.js';
import { formatsOf, resolveFormat } from './lib/output/format.js';
import type { Context, ContextDeps, Globals } from './lib/context.js';
import { IO, type IOOptions } from './lib/io.js';

import { VERSION } from './version.js';

export type MainOptions = Omit<IOOptions, 'noColor' | 'noInput'> & Pick<ContextDeps, 'now' | 'sleep' | 'backoffBaseMs' | 'signal'>;

export async function main(line: readonly string[], streams: MainOptions): Promise<ExitCode> {
  const argv = [...helpCommandAsFlag(line)];
  let io = new IO(streams);
  let ctx: Context | undefined;
  let globals: Globals | undefined;
  let exitCode: ExitCode = EXIT.ok;

  const runner: Runner = {
    async run(cmd, invoke) {
      const opts = cmd.optsWithGlobals();
      globals = toGlobals(opts, cmd.getOptionValueSourceWithGlobals('timeout') === 'cli');
      if (opts.json && typeof opts.output === 'string' && opts.output !== 'json') {
        throw new UsageError(`--json and -o ${opts.output} ask for two formats`, 'give one of them');
      }
      // One table says which -o each command takes; completion offers the same.
      const path: string[] = []; // "tx list" for `offramp tx list`
      for (let c: CommandUnknownOpts | null = cmd; c?.parent; c = c.parent) path.unshift(c.name());
      if (typeof opts.output === 'string') resolveFormat({ output: opts.output }, formatsOf(path.join(' ')));
      const filter = typeof opts.jq === 'string' ? await jqFilter(opts.jq, opts.output, streams.stdout) : undefined;
      io = new IO({ ...streams, ...(filter ? { stdout: filter.stream } : {}), noColor: opts.color === false, noInput: !globals.input, wide: opts.wide === true });
      for (const line of secretFlagWarnings(cmd)) io.err(line);
      const [{ createContext }, { withSecretFiles }] = await Promise.all([import('./lib/context.js'), import('./lib/config/secret-files.js')]);
      // The streams carry the context's test seams (now, sleep, backoffBaseMs, signal).
      ctx = createContext({ ...streams, io, env: readsNoSecret.has(cmd) ? streams.env : withSecretFiles(streams.env), globals, version: VERSION });
      let code: number | void;
      try {
        code = await invoke(ctx);
      } catch (err) {
        // A failed run's JSON (smoke's report) is still filtered; a half-written one is dropped.
        await filter?.finish().catch(() => undefined);
        throw err;
      }
      await filter?.finish();
      if (typeof code === 'number') exitCode = code as ExitCode;
    },
  };

  // Before parsing, so that a line commander refuses (an unknown command or flag) is
  // reported as the error envelope too when JSON was asked for. A person at a terminal reads
  // stderr: there the error stays one line and its hint; a script (stderr not a terminal)
  // gets the envelope (docs/output.md, "Errors and exit codes").
  const jsonAsked = wantsJson(argv) && !streams.stderr.isTTY;
  const output: OutputConfiguration = {
    writeOut: (text) => streams.stdout.write(text),
    writeErr: (text) => streams.stderr.write(text),
    outputError: (text, write) =>
      write(jsonAsked ? `${JSON.stringify(errorEnvelope('USAGE', text.replace(/^error: /, '').trim()))}\n` : text.replace(/^error: /, 'error: USAGE: ')),
    // Help wraps to the terminal the help goes to; 80 columns when it is not one.
    getOutHelpWidth: () => (streams.stdout.isTTY && streams.stdout.columns) || DEFAULT_HELP_WIDTH,
    getErrHelpWidth: () => (streams.stderr.isTTY && streams.stderr.columns) || DEFAULT_HELP_WIDTH,
  };

  try {
    const program = await loadProgram(runner, output, argv);
    // `offramp help NAME` for a NAME that is no command: commander would print the program's
    // help as if NAME were nothing; it is a typo, said as one.
    if (line[0] === 'help' && line[1] !== undefined && !line[1].startsWith('-') && !program.commands.some((c) => c.name() === line[1])) {
      throw new UsageError(`unknown command '${line[1]}'`, 'offramp --help lists the commands');
    }
    const word = commandWord(program, argv);
    const meant = word !== undefined ? commandMeant(program, word) : undefined;
    if (meant) throw new UsageError(`unknown command '${word}'`, `did you mean ${meant}? (offramp ${meant} --help)`);
    // `offramp` or `offramp tx` alone asks what there is: its help on stdout, exit 0, as gh
    // answers (commander would print it as an error).
    const group = bareGroup(program, argv);
    if (group) {
      group.outputHelp();
      return exitCode;
    }
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    exitCode = report(err, io, globals, jsonAsked);
  } finally {
    await ctx?.close().catch(() => undefined);
  }
  return exitCode;
}

/**
 * `--jq EXPR`: the run prints JSON (NDJSON with `-o ndjson`) into a filter that hands it to
 * jq; the expression is checked before anything is sent, and jq is loaded only here.
 */
async function jqFilter(expr: string, output: unknown, stdout: MainOptions['stdout']) {
  if (typeof output === 'string' && output !== 'json' && output !== 'ndjson') {
    throw new UsageError(`--jq filters JSON, and -o ${output} is not JSON`, 'drop -o, or give -o json or -o ndjson');
  }
  const { checkJq, JqFilter } = await import('./lib/output/jq.js');
  await checkJq(expr);
  return new JqFilter(expr, output === 'ndjson', stdout);
}

/** Whether the command line asks for JSON (`--json`, `-o json`, `--output json`), read before commander parses it. */
export function wantsJson(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--json' || a === '--output=json' || a === '-ojson' || a === '--jq' || a.startsWith('--jq=')) return true;
    if ((a === '-o' || a === '--output') && argv[i + 1] === 'json') return true;
  }
  return false;
}

function report(err: unknown, io: IO, globals: Globals | undefined, jsonAsked = false): ExitCode {
  if (err instanceof CommanderError) {
    // --help and --version arrive here as "errors" with exit code 0.
    if (err.exitCode === 0) return EXIT.ok;
    return EXIT.usage;
  }
  if (err instanceof Declined) {
    io.err(err.message);
    return EXIT.ok;
  }
  if (err instanceof Error && (err.name === 'ExitPromptError' || err.name === 'AbortPromptError')) {
    // Ctrl-C at a prompt: an interruption like any other.
    io.err('interrupted at a prompt; nothing was sent');
    return EXIT.sigint;
  }
  const verbose = globals?.verbose ?? false;
  const json = globals ? globals.json && !io.stderrIsTTY : jsonAsked;
  // Anything else is a bug: INTERNAL, only its first line on a terminal (--verbose shows the rest).
  const e =
    err instanceof CliError
      ? err
      : new CliError(err instanceof Error ? err.message : String(err), 'INTERNAL', EXIT.failure, verbose ? undefined : 'run again with --verbose for details');
  if (json) {
    io.err(JSON.stringify('envelope' in e && e.envelope ? e.envelope : errorEnvelope(e.code, e.message)));
  } else {
    io.err(`error: ${e.code}: ${e === err ? e.message : e.message.split('\n')[0]}`);
    if (e.hint) io.err(`hint: ${e.hint}`);
    if ('requestId' in e && e.requestId && verbose) io.err(`request id: ${String(e.requestId)}`);
  }
  if (verbose) stack(io, err);
  return e.exitCode;
}

/** A stack trace (--verbose), a line at a time: IO.err writes one line per call. */
function stack(io: IO, err: unknown): void {
  if (err instanceof Error && err.stack) for (const line of err.stack.split('\n')) io.err(line);
}

function toGlobals(o: Record<string, unknown>, timeoutGiven: boolean): Globals {
  const keys = o.apiKey as string[] | undefined;
  return {
    ...(typeof o.profile === 'string' ? { profile: o.profile } : {}),
    ...(keys?.length ? { apiKey: keys[keys.length - 1]! } : {}),
    ...(typeof o.baseUrl === 'string' ? { baseUrl: o.baseUrl } : {}),
    // --jq filters the JSON a run prints: it asks for JSON, unless -o ndjson asked for lines.
    json: Boolean(o.json) || o.output === 'json' || (typeof o.jq === 'string' && o.output !== 'ndjson'),
    jq: typeof o.jq === 'string',
    ...(typeof o.output === 'string' ? { output: o.output } : {}),
    timeout: o.timeout as number,
    timeoutGiven,
    retries: o.retries as number,
    verbose: Boolean(o.verbose),
    yes: Boolean(o.yes),
    input: o.input !== false,
  };
}
