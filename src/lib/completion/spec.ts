// What a shell needs to complete `offramp`, read off the commander tree itself so the
// scripts cannot drift from the commands: for every command path, its subcommands, its
// flags (and which take a value, with the values when they are a closed list), and what
// its positional arguments accept.
import type { CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';
import { SIMULATOR_EVENTS } from '../vocabulary.js';

/** A value list: fixed words, or a dynamic source resolved by the script at completion time. */
export type Values = { words: string[] } | { dynamic: 'profiles' } | { files: true };

export type FlagSpec = { names: string[]; description: string; takesValue: boolean; values?: Values };

export type CommandSpec = {
  /** e.g. "" for the program, "tx", "tx create", "simulate walk" */
  path: string;
  description: string;
  subcommands: { name: string; description: string }[];
  flags: FlagSpec[];
  /** Completions for the positional arguments, in order. */
  args: (Values | undefined)[];
};

const FILE_FLAGS = new Set(['--out', '--file', '--junit', '--store']);
const PROFILE_FLAGS = new Set(['--profile']);

function valuesOf(option: Option): Values | undefined {
  if (option.argChoices?.length) return { words: [...option.argChoices] };
  if (PROFILE_FLAGS.has(option.long ?? '')) return { dynamic: 'profiles' };
  if (FILE_FLAGS.has(option.long ?? '')) return { files: true };
  return undefined;
}

function flagsOf(cmd: Command): FlagSpec[] {
  return cmd.options
    .filter((o) => !o.hidden)
    .map((o) => {
      const values = valuesOf(o);
      return {
        names: [o.short, o.long].filter((n): n is string => Boolean(n)),
        description: o.description,
        takesValue: o.required || o.optional,
        ...(values ? { values } : {}),
      };
    });
}

/** Positional completions that commander's arguments cannot express by themselves. */
function argsOf(cmd: Command, path: string): (Values | undefined)[] {
  return cmd.registeredArguments.map((arg) => {
    if (arg.argChoices?.length) return { words: [...arg.argChoices] };
    if (arg.name() === 'event') return { words: [...SIMULATOR_EVENTS] };
    if (['profile use', 'profile show', 'profile remove'].includes(path)) return { dynamic: 'profiles' } as const;
    return undefined;
  });
}

export function describeProgram(program: Command): CommandSpec[] {
  const specs: CommandSpec[] = [];
  const visit = (cmd: Command, path: string, inherited: FlagSpec[]) => {
    const flags = [...inherited, ...flagsOf(cmd), { names: ['-h', '--help'], description: 'show help', takesValue: false }];
    const subcommands = cmd.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden && c.name() !== 'help');
    specs.push({
      path,
      description: cmd.description(),
      subcommands: subcommands.map((c) => ({ name: c.name(), description: c.description() })),
      flags: dedupe(flags),
      args: argsOf(cmd, path),
    });
    for (const sub of subcommands) visit(sub, path ? `${path} ${sub.name()}` : sub.name(), path === '' ? flagsOf(cmd) : inherited);
  };
  visit(program, '', []);
  return specs;
}

function dedupe(flags: FlagSpec[]): FlagSpec[] {
  const seen = new Set<string>();
  return flags.filter((f) => {
    const key = f.names.join(',');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
