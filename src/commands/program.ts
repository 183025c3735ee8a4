// The `offramp` program: global flags plus the command tree. Built by `main` to run a
// command, and by `completion` to describe itself to a shell.
import { Command, InvalidArgumentError, Option, type OutputConfiguration } from '@commander-js/extra-typings';
import { VERSION_TEXT } from '../version.js';
import { registerCommands, type Runtime } from './tree.js';

export const OUTPUT_FORMATS = ['table', 'json', 'csv', 'ndjson', 'xlsx'] as const;

/**
 * The program with its whole command tree, or, given the command line, only the branch
 * the line runs (see registerCommands).
 */
export function createProgram(runtime: Runtime, output: OutputConfiguration = {}, argv?: readonly string[]): Program {
  const program = globalOptions(new Command('offramp')).showSuggestionAfterError(true).exitOverride().configureOutput(output);
  registerCommands(program, runtime, argv && commandWord(program, argv));
  return program;
}

/** The program's own flags, which every command sees; their types are the commands' globals. */
function globalOptions(program: Command) {
  return program
    .description('Command-line tool for the partner offramp API (stablecoin in, NGN out).')
    .version(VERSION_TEXT, '-V, --version', 'print the version and the API version it speaks')
    .addOption(new Option('--profile <name>', 'stored profile to use').env('OFFRAMP_PROFILE'))
    .addOption(
      new Option('--api-key <key>', 'API key for this call (prefer OFFRAMP_API_KEY: flags show in the process list)').argParser(collect),
    )
    .addOption(new Option('--base-url <url>', 'base address including /api/v1/partner'))
    .option('--json', 'print exactly the API data as JSON')
    .addOption(new Option('-o, --output <format>', 'output format, where supported').choices(OUTPUT_FORMATS))
    .option('--timeout <ms>', 'per-request timeout in ms', positiveInt, 30_000)
    .option('--retries <n>', 'retry ceiling for network errors, 429 and 5xx', nonNegativeInt, 3)
    .option('-v, --verbose', 'HTTP trace on stderr (the API key is always redacted)')
    .option('-y, --yes', 'skip confirmations')
    .option('--no-input', 'never prompt (implied when stdin is not a terminal or CI is set)')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--wide', 'tables show every column whole, even wider than the terminal');
}

/** The program, typed with its global flags. */
export type Program = ReturnType<typeof globalOptions>;

/**
 * The first word of argv that is not a global option or an option's value: the top-level
 * command it names, if any. An option the program does not know (a typo, combined short
 * flags) stops the search: the whole tree is then registered and commander reports it.
 */
export function commandWord(program: Program, argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (!word.startsWith('-') || word === '-') return word;
    if (word === '--') return undefined;
    const [flag] = word.split('=', 1);
    const option = program.options.find((o) => o.long === flag || o.short === flag);
    if (!option) return undefined;
    if ((option.required || option.optional) && !word.includes('=')) i++;
  }
  return undefined;
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

/** `--api-key` may repeat (the emulator serves several partners); calls use the last one. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) <= 0) throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
}

export function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}
