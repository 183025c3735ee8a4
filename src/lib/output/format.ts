// Which renderer a command's data goes through: -o/--output, with --json as -o json.
import { UsageError } from '../errors.js';

export const FORMATS = ['table', 'json', 'csv', 'ndjson', 'xlsx'] as const;
export type Format = (typeof FORMATS)[number];

const TABLE_JSON = ['table', 'json'] as const;
const LISTED = ['table', 'json', 'ndjson'] as const;

/**
 * The formats each command takes with -o, its default first (docs/output.md, "Output formats"):
 * `main` refuses any other before the command runs, and shell completion offers only
 * these. A command not listed prints no data of its own in a format: -o json there is
 * --json (errors as the JSON envelope), and nothing else is taken.
 */
export const COMMAND_FORMATS: Readonly<Record<string, readonly Format[]>> = {
  quote: TABLE_JSON,
  'tx create': TABLE_JSON,
  'tx get': TABLE_JSON,
  'tx list': LISTED,
  'tx cancel': TABLE_JSON,
  'tx history': TABLE_JSON,
  'tx watch': LISTED,
  'revenue export': ['csv', 'json', 'ndjson', 'xlsx'],
  'revenue summary': TABLE_JSON,
  reconcile: TABLE_JSON,
  'webhooks list': ['table', 'json', 'ndjson', 'csv'],
  'webhooks get': TABLE_JSON,
  'webhooks replay': TABLE_JSON,
  'webhooks listen': LISTED,
  'webhooks verify': TABLE_JSON,
  'webhooks resend': LISTED,
  simulate: TABLE_JSON,
  'simulate walk': TABLE_JSON,
  smoke: TABLE_JSON,
  conform: TABLE_JSON,
  demo: TABLE_JSON,
  doctor: TABLE_JSON,
  'profile list': TABLE_JSON,
  'profile show': TABLE_JSON,
  'config path': TABLE_JSON,
  api: TABLE_JSON,
  'emulator clock advance': TABLE_JSON,
  'emulator reset': TABLE_JSON,
  'emulator fault add': TABLE_JSON,
  'emulator fault clear': TABLE_JSON,
  'emulator webhooks set-url': TABLE_JSON,
  'emulator webhooks clear': TABLE_JSON,
  'emulator state import': TABLE_JSON,
};

/** The formats the command at `path` ("tx list") takes with -o. */
export function formatsOf(path: string): readonly Format[] {
  return Object.hasOwn(COMMAND_FORMATS, path) ? COMMAND_FORMATS[path]! : ['json'];
}

export function resolveFormat(globals: { json?: boolean; output?: string }, supported: readonly Format[] = ['table', 'json']): Format {
  if (globals.json) return 'json';
  const wanted = (globals.output ?? 'table') as Format;
  if (!(FORMATS as readonly string[]).includes(wanted)) {
    throw new UsageError(`-o ${globals.output}: unknown output format`, `use one of: ${FORMATS.join(', ')}`);
  }
  if (!supported.includes(wanted)) {
    throw new UsageError(`-o ${wanted} is not supported by this command`, `use one of: ${supported.join(', ')}`);
  }
  return wanted;
}
