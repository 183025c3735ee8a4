// Which renderer a command's data goes through: -o/--output, with --json as -o json.
import { UsageError } from '../errors.js';

export const FORMATS = ['table', 'json', 'csv', 'ndjson', 'xlsx'] as const;
export type Format = (typeof FORMATS)[number];

const TABLE_JSON = ['table', 'json'] as const;
const LISTED = ['table', 'json', 'ndjson'] as const;

/**
 * The formats each command takes with -o, its default first (docs/output.md, "Output formats").
 * A command not listed takes -o json alone, as --json.
 */
export const COMMAND_FORMATS: Readonly<Record<string, readonly Format[]>> = {
  quote: TABLE_JSON,
  'tx create': TABLE_JSON,
  'tx get': TABLE_JSON,
  'tx list': ['table', 'json', 'ndjson', 'csv'],
  'tx cancel': TABLE_JSON,
  'tx history': TABLE_JSON,
  'tx watch': LISTED,
  'revenue export': ['csv', 'json', 'ndjson', 'xlsx'],
  'revenue summary': ['table', 'json', 'csv'],
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

export function resolveFormat(globals: { json?: boolean; output?: string }, supported: readonly Format[]): Format {
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

/** A file name's extension, without its dot; undefined for none (a dotfile such as `.rows` has none). */
export function extensionOf(out: string): string | undefined {
  const base = out.slice(Math.max(out.lastIndexOf('/'), out.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1) : undefined;
}

/**
 * The format of a file a command writes (--out): the one its extension says, which must be
 * `writable` and agree with -o, else refused before any request. A name without an extension
 * (a device, a pipe) takes -o's format, `given`.
 */
export function formatOfFile<F extends string>(out: string, given: string | undefined, writable: readonly F[]): F | undefined {
  const ext = extensionOf(out)?.toLowerCase();
  if (ext === undefined) return undefined;
  const listed = writable.map((f) => `.${f}`).join(', ');
  if (!(writable as readonly string[]).includes(ext)) {
    throw new UsageError(`--out ${out}: this command cannot write .${ext} files`, `name the file ${listed}; the format follows the name`);
  }
  if (given !== undefined && given !== ext) {
    throw new UsageError(`-o ${given} contradicts --out ${out}, which names a .${ext} file`, `drop -o (the format follows the name), or name the file .${given}`);
  }
  return ext as F;
}
