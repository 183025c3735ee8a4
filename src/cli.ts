// `main(argv, streams)`: parses the command line, builds the context, runs one command,
// and maps whatever it threw to one line on stderr and an exit code. It never calls
// process.exit, so tests can run it in process.
//
// Only commander is loaded here. Each command's module is imported when it runs.
import { CommanderError } from 'commander';
import { createProgram } from './commands/program.js';
import { DEFAULT_HELP_WIDTH } from './help/snapshot.js';
import type { Runtime } from './commands/tree.js';
import { CliError, EXIT, type ExitCode } from './lib/errors.js';
import type { Context, ContextDeps, Globals } from './lib/context.js';
import { IO, type IOOptions } from './lib/io.js';

import { VERSION } from './version.js';

export type MainOptions = Omit<IOOptions, 'noColor' | 'noInput'> & Pick<ContextDeps, 'now' | 'sleep' | 'backoffBaseMs'>;

export async function main(argv: string[], streams: MainOptions): Promise<ExitCode> {
  let io = new IO(streams);
  let ctx: Context | undefined;
  let globals: Globals | undefined;
  let exitCode: ExitCode = EXIT.ok;

  const runtime: Runtime = {
    async run(cmd, load, args) {
      const opts = cmd.optsWithGlobals();
      globals = toGlobals(opts, cmd.getOptionValueSourceWithGlobals('timeout') === 'cli');
      io = new IO({ ...streams, noColor: opts.color === false, noInput: !globals.input });
      const { createContext } = await import('./lib/context.js');
      ctx = createContext({
        io,
        env: streams.env,
        globals,
        version: VERSION,
        ...(streams.now ? { now: streams.now } : {}),
        ...(streams.sleep ? { sleep: streams.sleep } : {}),
        ...(streams.backoffBaseMs !== undefined ? { backoffBaseMs: streams.backoffBaseMs } : {}),
      });
      const mod = await load();
      const code = await mod.run({ ...cmd.opts(), ...args }, ctx);
      if (typeof code === 'number') exitCode = code as ExitCode;
    },
  };

  const program = createProgram(runtime, {
    writeOut: (text) => streams.stdout.write(text),
    writeErr: (text) => streams.stderr.write(text),
    outputError: (text, write) => write(text.replace(/^error: /, 'error: USAGE: ')),
    // Help wraps to the terminal the help goes to; 80 columns when it is not one.
    getOutHelpWidth: () => (streams.stdout.isTTY && streams.stdout.columns) || DEFAULT_HELP_WIDTH,
    getErrHelpWidth: () => (streams.stderr.isTTY && streams.stderr.columns) || DEFAULT_HELP_WIDTH,
  }, argv);

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    exitCode = report(err, io, globals);
  } finally {
    await ctx?.close().catch(() => undefined);
  }
  return exitCode;
}

function report(err: unknown, io: IO, globals: Globals | undefined): ExitCode {
  if (err instanceof CommanderError) {
    // --help and --version arrive here as "errors" with exit code 0.
    if (err.exitCode === 0) return EXIT.ok;
    return EXIT.usage;
  }
  if (isPromptAbort(err)) {
    io.err('cancelled; nothing was sent');
    return EXIT.usage;
  }
  const verbose = globals?.verbose ?? false;
  if (err instanceof CliError) {
    if (globals?.json) {
      const envelope = 'envelope' in err && err.envelope ? err.envelope : { error: { code: err.code, message: err.message, timestamp: new Date().toISOString() } };
      io.err(JSON.stringify(envelope));
    } else {
      io.err(`error: ${err.code}: ${err.message}`);
      if (err.hint) io.err(`hint: ${err.hint}`);
      if ('requestId' in err && err.requestId && verbose) io.err(`request id: ${String(err.requestId)}`);
    }
    if (verbose && err.stack) io.err(err.stack);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  if (globals?.json) {
    io.err(JSON.stringify({ error: { code: 'INTERNAL', message, timestamp: new Date().toISOString() } }));
  } else {
    io.err(`error: INTERNAL: ${message.split('\n')[0]}`);
    if (!verbose) io.err('hint: run again with --verbose for details');
  }
  if (verbose && err instanceof Error && err.stack) io.err(err.stack);
  return EXIT.failure;
}

function isPromptAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'ExitPromptError' || err.name === 'AbortPromptError');
}

function toGlobals(o: Record<string, unknown>, timeoutGiven: boolean): Globals {
  const keys = o.apiKey as string[] | undefined;
  return {
    ...(typeof o.profile === 'string' ? { profile: o.profile } : {}),
    ...(keys?.length ? { apiKey: keys[keys.length - 1]! } : {}),
    ...(typeof o.baseUrl === 'string' ? { baseUrl: o.baseUrl } : {}),
    json: Boolean(o.json) || o.output === 'json',
    ...(typeof o.output === 'string' ? { output: o.output } : {}),
    timeout: o.timeout as number,
    timeoutGiven,
    retries: o.retries as number,
    verbose: Boolean(o.verbose),
    yes: Boolean(o.yes),
    input: o.input !== false,
  };
}
