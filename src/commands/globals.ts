// The `offramp` program's own flags, which every command sees, and how a command line
// names its top-level command. Loaded by every run that parses a command line, so it loads
// only commander and small modules of plain values (the flag value parsers, the output formats,
// the secret variables' names, the version, the error classes): no Node module, and none of
// the commands, which load.ts loads.
import { Command, Help, InvalidArgumentError, Option, type CommandUnknownOpts, type OutputConfiguration } from '@commander-js/extra-typings';
import { UsageError } from '../lib/errors.js';
import { durationFlag } from '../lib/input/values.js';
import { COMMAND_FORMATS, FORMATS } from '../lib/output/format.js';
import { ADMIN_TOKEN_ENV, type SecretVariable } from '../lib/config/secret-variables.js';
import { VERSION_TEXT } from '../version.js';
import { rootOf, runsBare } from './command.js';

export function newProgram(output: OutputConfiguration = {}) {
  return new Command('offramp')
    .description('Command-line tool for the partner offramp API (stablecoin in, NGN out).')
    .version(VERSION_TEXT, '-V, --version', 'print the version and the API version it speaks')
    // Not commander's .env(), which reads process.env and takes an empty value as a name:
    // profileNameFor (lib/config/profile.ts) reads it, empty meaning unset, in one place.
    .option('--profile <name>', 'stored profile to use (env: OFFRAMP_PROFILE)')
    .addOption(
      new Option('--api-key <key>', 'API key for this call (prefer OFFRAMP_API_KEY or OFFRAMP_API_KEY_FILE: flags show in the process list)').argParser(collect),
    )
    .addOption(new Option('--base-url <url>', 'base address including /api/v1/partner'))
    .option('--json', 'print exactly the API data as JSON')
    .option('--jq <expr>', 'print the JSON through this jq expression (implies --json; strings print raw)')
    .addOption(new Option('-o, --output <format>', 'output format, where supported').choices(FORMATS))
    .option('--timeout <duration>', 'deadline of each request: 500ms, 30s, 2m (a bare number is ms)', timeoutMs, 30_000)
    .option('--retries <n>', 'retry ceiling for network errors, 429 and 5xx', nonNegativeInt, 3)
    .option('-v, --verbose', 'HTTP trace on stderr (the API key is always redacted)')
    .option('-y, --yes', 'skip confirmations')
    .option('--no-input', 'never prompt (implied when stdin is not a terminal or CI is set)')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--wide', 'tables show every column whole, even wider than the terminal')
    // Every command's help lists the program's flags it takes, under their own heading (as
    // gh's INHERITED FLAGS): `emulator wait --help` shows --timeout and --base-url. Only the
    // program's: a group's own flags (`emulator --port`) start that group, not its commands.
    .configureHelp({
      showGlobalOptions: true,
      visibleGlobalOptions: programFlags,
      formatHelp(cmd, helper) {
        return commandsFirst(Help.prototype.formatHelp.call(this, cmd, helper), cmd, helper);
      },
    })
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput(output);
}

/** The flags of the program `cmd` belongs to that a command takes (not --version, not the program's own --help). */
function programFlags(cmd: CommandUnknownOpts): Option[] {
  if (!cmd.parent) return [];
  return rootOf(cmd).options.filter((o) => !o.hidden && o.long !== '--version') as Option[];
}

/** Help lists the commands before the flags, as gh's does; a command with none below it is unchanged. */
function commandsFirst(text: string, cmd: CommandUnknownOpts, helper: Help): string {
  const groups = new Set(helper.visibleCommands(cmd).map((c) => c.helpGroup() || 'Commands:'));
  const rank = (section: string) => (groups.has(section.split('\n', 1)[0]!) ? 1 : /^(Global )?Options:\n/.test(section) ? 2 : 0);
  // Commander ends each section with a blank line, and no line of a section is blank; sort is stable.
  return `${text.trimEnd().split('\n\n').sort((a, b) => rank(a) - rank(b)).join('\n\n')}\n`;
}

export type Program = ReturnType<typeof newProgram>;

export type GlobalFlags = ReturnType<Program['opts']>;

/**
 * Adds a top-level command, and gives everything below it the program's output, exit and
 * suggestion settings, as `.command()` would (`.addCommand()` copies none), and the output
 * formats it takes (COMMAND_FORMATS) at the end of its help. `__complete`, which shell
 * completion runs, is left out of help.
 */
export function addTopLevel(program: Program, cmd: CommandUnknownOpts): void {
  program.addCommand(cmd, { hidden: cmd.name().startsWith('__') });
  const visit = (c: CommandUnknownOpts, parent: CommandUnknownOpts, path: string) => {
    c.copyInheritedSettings(parent);
    const formats = Object.hasOwn(COMMAND_FORMATS, path) ? COMMAND_FORMATS[path]! : [];
    if (formats.length > 1) c.addHelpText('after', `\nOutput formats (-o): ${formats[0]} (the default), ${formats.slice(1).join(', ')}`);
    for (const sub of c.commands) visit(sub, c, `${path} ${sub.name()}`);
  };
  visit(cmd, program, cmd.name());
}

/**
 * The first word of argv that is not a global option or an option's value: the top-level
 * command it names, if any. An option the program does not know (a typo, combined short
 * flags) stops the search: the whole program is then loaded and commander reports it.
 */
export function commandWord(program: Program, argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (!word.startsWith('-') || word === '-') return word;
    const words = flagWords(program.options, argv, i);
    if (words === 0) return undefined;
    i += words - 1;
  }
  return undefined;
}

/**
 * The group a command line names and stops at (`offramp`, `offramp tx`, `offramp --json
 * webhooks`): a command with commands below it and no arguments of its own, which has
 * nothing to run but its help. Undefined for anything else, left to commander.
 */
export function bareGroup(program: Program, argv: readonly string[]): CommandUnknownOpts | undefined {
  let cmd: CommandUnknownOpts = program;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word.startsWith('-')) {
      // --version asks for something else, and a flag missing its value is commander's usage error.
      if (word === '--version' || word === '-V') return undefined;
      const words = flagWords([...cmd.options, ...program.options], argv, i);
      if (words === 0 || i + words > argv.length) return undefined;
      i += words - 1;
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) return undefined;
    cmd = sub;
  }
  return cmd.commands.length > 0 && cmd.registeredArguments.length === 0 && !runsBare.has(cmd) ? cmd : undefined;
}

/** How many words of argv the flag at `i` takes (itself and its value), 0 when it is none of `options` (or `--`). */
function flagWords(options: CommandUnknownOpts['options'], argv: readonly string[], i: number): number {
  const word = argv[i]!;
  const [flag] = word.split('=', 1);
  const option = options.find((o) => o.long === flag || o.short === flag);
  if (!option) return 0;
  return (option.required || option.optional) && !word.includes('=') ? 2 : 1;
}

/**
 * Words a user may type for a command whose name is short or unlike them, which commander's
 * spelling-distance suggestion cannot reach (`transactions` is far from `tx`; `events`
 * is nearer to `revenue` than to `webhooks`).
 */
const COMMAND_SYNONYMS: Readonly<Record<string, string>> = {
  transactions: 'tx',
  transaction: 'tx',
  trans: 'tx',
  events: 'webhooks',
  event: 'webhooks',
  ledger: 'revenue',
  simulator: 'simulate',
};

/** The command a user most likely meant by `word`, when `word` is no command but a synonym of one. */
export function commandMeant(program: Program, word: string): string | undefined {
  if (program.commands.some((c) => c.name() === word || c.aliases().includes(word))) return undefined;
  return Object.hasOwn(COMMAND_SYNONYMS, word) ? COMMAND_SYNONYMS[word] : undefined;
}

/** A repeatable flag's values: `--api-key` (the emulator serves several partners; calls use the last one), the emulator's `--allow-host`. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * --timeout: a duration (a bare number is ms, as it always was), at least 1 ms, read as every
 * duration flag is; refused as commander refuses a flag's value, which names the flag already.
 */
function timeoutMs(value: string): number {
  try {
    return durationFlag(value, '--timeout', 'ms', 1);
  } catch (err) {
    if (err instanceof UsageError) throw new InvalidArgumentError(err.message.replace(/^--timeout:? /, ''));
    throw err;
  }
}

function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}

/**
 * The secrets a flag can carry, and the variable that carries each instead. A flag shows
 * in the process list and in shell history; the variable, or the file it names, does not.
 */
const SECRET_FLAGS: Readonly<Record<string, SecretVariable>> = {
  '--api-key': 'OFFRAMP_API_KEY',
  '--secret': 'OFFRAMP_WEBHOOK_SECRET',
  '--webhook-secret': 'OFFRAMP_WEBHOOK_SECRET',
  '--admin-token': ADMIN_TOKEN_ENV,
};

/**
 * One warning line per secret flag typed on this command line (a variable does not count):
 * other local users can read it. The emulator's own --api-key lists made-up keys it accepts.
 */
export function secretFlagWarnings(cmd: CommandUnknownOpts): string[] {
  const lines: string[] = [];
  for (let c: CommandUnknownOpts | null = cmd; c; c = c.parent) {
    for (const option of c.options) {
      const variable = option.long ? SECRET_FLAGS[option.long] : undefined;
      if (!variable || c.getOptionValueSource(option.attributeName()) !== 'cli') continue;
      if (option.long === '--api-key' && cmd.name() === 'emulator') continue;
      lines.push(`warning: ${option.long} is visible to other processes and kept in shell history; use ${variable} or ${variable}_FILE`);
    }
  }
  return lines;
}
