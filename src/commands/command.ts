// How a command is written. Each command's file exports its commander definition,
// `command()`, and `run(opts, ctx)`, which knows nothing of parsing (docs/development.md,
// "Development"). `run`'s options type is derived from the definition
// (OptionsOf): @commander-js/extra-typings infers each flag's key and type from its
// .option() call, so a renamed or retyped flag is a compile error where `run` reads it.
// Positional arguments reach `run` under their own names too (withArguments).
import { Command, type Argument, type CommandUnknownOpts, type InferArgument, type OptionValues } from '@commander-js/extra-typings';
import type { Context } from '../lib/context.js';

/** Runs a command with a context built for it (src/cli.ts); `invoke` calls its `run`. */
export type Runner = {
  run(cmd: CommandUnknownOpts, invoke: (ctx: Context) => Promise<number | void>): Promise<void>;
};

type Resolve<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;

/**
 * What `run` is given: the command's flags and positional arguments, and the options of a
 * parent command it declared it reads (the third type argument of its Command, as in
 * `new Command<[], {}, ControlFlags>('reset')`, which reads `emulator --admin-token`).
 */
export type OptionsOf<F extends () => CommandUnknownOpts> = ReturnType<F> extends Command<unknown[], infer O, infer G> ? Resolve<O & G> : never;

export type CommandModule<A extends unknown[], O extends OptionValues, G extends OptionValues> = {
  command(): Command<A, O, G>;
  run(opts: Resolve<O & G>, ctx: Context): Promise<number | void>;
};

/**
 * The command of `module`, whose action hands `run` its options and the context. The
 * options are the command's own, over those of the commands above it (a parent's flag,
 * such as `emulator --admin-token`, may stand anywhere on the line), each positional
 * argument under its name.
 */
export function verb<A extends unknown[], O extends OptionValues, G extends OptionValues>(module: CommandModule<A, O, G>, runner: Runner): Command<A, O, G> {
  const cmd = module.command();
  return cmd.action(async () => {
    cmd.registeredArguments.forEach((arg, i) => cmd.setOptionValue(argumentKey(arg.name()), cmd.processedArgs[i]));
    await runner.run(cmd, (ctx) => module.run({ ...cmd.optsWithGlobals(), ...cmd.opts() }, ctx));
  });
}

/** A command with commands below it (`tx`): its module builds it, its commands wired in. */
export type GroupModule = { command(runner: Runner): CommandUnknownOpts };

/**
 * A group of `modules`' commands, in the order its help lists them. With `bare`, that verb runs when the group is named alone (`emulator
 * webhooks` shows where deliveries go); any other group named alone prints its help.
 */
export function group(name: string, description: string, runner: Runner, modules: CommandModule<any, any, any>[], bare?: CommandModule<any, any, any>): CommandUnknownOpts {
  const cmd = new Command(name).description(description);
  for (const module of modules) cmd.addCommand(verb(module, runner), { isDefault: module === bare });
  if (bare) runsBare.add(cmd);
  return cmd;
}

/** The program `cmd` belongs to: the command at the top of its tree. */
export const rootOf = (cmd: CommandUnknownOpts): CommandUnknownOpts => (cmd.parent ? rootOf(cmd.parent) : cmd);

/**
 * The commands that read no secret: a `NAME_FILE` that cannot be read does not stop them, so
 * tab completion and its script work whatever the environment holds (docs/configuration.md).
 */
export const readsNoSecret = new WeakSet<CommandUnknownOpts>();

/** The groups that run a verb of theirs when named alone (commander keeps its default verb private). */
export const runsBare = new WeakSet<CommandUnknownOpts>();

export function build(module: GroupModule | CommandModule<any, any, any>, runner: Runner): CommandUnknownOpts {
  return 'run' in module ? verb(module, runner) : module.command(runner);
}

/** `[event_ids...]` → `eventIds`: the key of a positional argument's value among the options. */
export function argumentKey(name: string): string {
  return name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
}

type Camel<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type KeyOf<Usage extends string> = Usage extends `${'<' | '['}${infer N}${'>' | ']'}` ? Camel<N extends `${infer V}...` ? V : N> : Camel<Usage>;
type AnyArgument = Argument<string, any, any, any, any>;
type ValueOf<X> = X extends Argument<infer U, infer D, infer C, infer R, infer Ch> ? InferArgument<U, D, C, R, Ch> : never;
type Values<A extends readonly AnyArgument[]> = { -readonly [I in keyof A]: ValueOf<A[I]> };
type Named<A extends readonly AnyArgument[]> = { [X in A[number] as X extends Argument<infer U, any, any, any, any> ? KeyOf<U> : never]: ValueOf<X> };

/**
 * `cmd` with positional arguments `args`, in order: each one's value is among `run`'s
 * options under its name in camel case (`[event_ids...]` → `eventIds`), typed as
 * commander parses it. (Commander's own .argument() keeps no name in its type.)
 */
export function withArguments<G extends OptionValues, const A extends readonly AnyArgument[]>(cmd: Command<[], {}, G>, ...args: A): Command<Values<A> & unknown[], Named<A>, G>;
export function withArguments(cmd: CommandUnknownOpts, ...args: AnyArgument[]): CommandUnknownOpts {
  for (const arg of args) cmd.addArgument(arg);
  return cmd;
}

export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}

/**
 * What a server (`offramp emulator`, `webhooks listen`) waits for: SIGINT or SIGTERM, with
 * which it resolves, or `signal` aborting (tests, embedding), when it resolves undefined.
 */
export function untilStopped(signal?: AbortSignal): Promise<NodeJS.Signals | undefined> {
  return new Promise((resolve) => {
    const stop = (s?: NodeJS.Signals | Event) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
      resolve(typeof s === 'string' ? s : undefined);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
  });
}
