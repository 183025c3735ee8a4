// What a shell needs to complete `offramp`, read off the commander tree itself so the
// scripts cannot drift from the commands. A value with no known completions completes to
// nothing, never to file names.
import type { CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';
import { FORMATS, formatsOf } from '../output/format.js';
import { DELIVERY_STATUSES, EVENT_TYPES, SIMULATOR_EVENTS, TRANSACTION_STATUSES } from '../vocabulary.js';

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

/** A value named `<file>`, `<path>` or `<body>` (a file's contents) is a file. */
const FILE_VALUE = /<(file|path|body)>/;

/** Flags that take any word (the set is open) but have usual ones worth offering. */
const USUAL_WORDS: Readonly<Record<string, readonly string[]>> = {
  'tx list --status': TRANSACTION_STATUSES,
  'webhooks list --type': EVENT_TYPES,
  'webhooks list --status': DELIVERY_STATUSES,
  'webhooks replay --failed-status': DELIVERY_STATUSES,
  'emulator fault add --event-type': EVENT_TYPES,
};

function valuesOf(option: Option, path: string): Values | undefined {
  const long = option.long ?? '';
  if (option.argChoices?.length) return { words: [...option.argChoices] };
  const usual = USUAL_WORDS[`${path} ${long}`];
  if (usual) return { words: [...usual] };
  if (long === '--profile') return { dynamic: 'profiles' };
  if (FILE_VALUE.test(option.flags)) return { files: true };
  return undefined;
}

function flagsOf(cmd: Command, path: string): FlagSpec[] {
  return cmd.options
    .filter((o) => !o.hidden)
    .map((o) => {
      const values = valuesOf(o, path);
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
    if (arg.name() === 'file') return { files: true } as const;
    if (['profile use', 'profile show', 'profile remove'].includes(path)) return { dynamic: 'profiles' } as const;
    return undefined;
  });
}

export function describeProgram(program: Command): CommandSpec[] {
  const specs: CommandSpec[] = [];
  const visit = (cmd: Command, path: string, inherited: FlagSpec[]) => {
    const own = flagsOf(cmd, path);
    const all = [...inherited, ...own, { names: ['-h', '--help'], description: 'show help', takesValue: false }];
    // A flag of the command's own and one it inherits under the same names: the first is offered.
    const flags = all.filter((f, i) => all.findIndex((g) => g.names.join(',') === f.names.join(',')) === i);
    const subcommands = visible(cmd);
    const formats = formatsBelow(cmd, path);
    specs.push({
      path,
      description: cmd.description(),
      subcommands: subcommands.map((c) => ({ name: c.name(), description: c.description() })),
      flags: flags.map((f) => (f.names.includes('--output') ? { ...f, values: { words: formats } } : f)),
      args: argsOf(cmd, path),
    });
    for (const sub of subcommands) visit(sub, path ? `${path} ${sub.name()}` : sub.name(), path === '' ? own : inherited);
  };
  visit(program, '', []);
  return specs;
}

function visible(cmd: Command): Command[] {
  return cmd.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden && c.name() !== 'help');
}

/** What `-o` may be at `path`: its command's formats, or at a group (`tx`), any format a command below takes. */
function formatsBelow(cmd: Command, path: string): string[] {
  const subcommands = visible(cmd);
  if (path !== '' && subcommands.length === 0) return [...formatsOf(path)];
  const found = new Set<string>(path === '' ? [] : formatsOf(path));
  for (const sub of subcommands) for (const f of formatsBelow(sub, path ? `${path} ${sub.name()}` : sub.name())) found.add(f);
  return FORMATS.filter((f) => found.has(f));
}
