// `offramp [command] --help` without loading commander: the build renders every command's
// help through commander (scripts/build.mjs → dist/help.json) and `main` prints it from
// there when commander would print exactly the same text. Help is a pure function of the
// command tree and the output width, so the build can render it once for the widths that
// occur: 80 columns (commander's width when stdout is not a terminal) and "wide enough
// that nothing wraps". Any other case (another terminal width, flags before --help, an
// unknown command, `offramp help X`) goes to commander as before.

export type HelpEntry = {
  /** The text at 80 columns. */
  narrow: string;
  /** The text with nothing wrapped; absent when it equals `narrow`. */
  wide?: string;
  /** The narrowest width at which commander prints `wide` (and every width above it). */
  wideFrom: number;
};

/** Help text by command path ('' is the program itself, then 'tx', 'tx get', …). */
export type HelpSnapshot = Record<string, HelpEntry>;

/** Commander's help width when stdout is not a terminal. */
export const DEFAULT_HELP_WIDTH = 80;

/**
 * `offramp help tx create` as `offramp tx create --help`: commander's own help command
 * takes one word and would print the help of `tx`. Any other line is returned as it is.
 */
export function helpCommandAsFlag(argv: readonly string[]): readonly string[] {
  if (argv[0] !== 'help' || argv.length < 2 || argv.slice(1).some((word) => word.startsWith('-'))) return argv;
  return [...argv.slice(1), '--help'];
}

/**
 * The help text commander would print for `argv`, when argv is a plain request for help
 * (command names then `--help` or `-h`) and the snapshot holds it for this width.
 * `width` is stdout's columns when it is a terminal; `load` is called only for a request for help.
 */
export function helpFromSnapshot(argv: readonly string[], width: number | undefined, load: () => HelpSnapshot | undefined): string | undefined {
  const flag = argv[argv.length - 1];
  if (flag !== '--help' && flag !== '-h') return undefined;
  const path = argv.slice(0, -1);
  if (path.some((word) => word.startsWith('-'))) return undefined;
  const snapshot = load();
  const key = path.join(' ');
  const entry = snapshot && Object.hasOwn(snapshot, key) ? snapshot[key] : undefined;
  if (!entry) return undefined;
  const columns = width || DEFAULT_HELP_WIDTH;
  if (columns === DEFAULT_HELP_WIDTH) return entry.narrow;
  if (columns >= entry.wideFrom) return entry.wide ?? entry.narrow;
  return undefined;
}
