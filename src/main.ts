// Process entry: run one command with the real streams, then exit with its code.
import { readFileSync } from 'node:fs';
import { isatty } from 'node:tty';
import { helpCommandAsFlag, helpFromSnapshot, type HelpSnapshot } from './help/snapshot.js';
import { outputFailed } from './lib/errors.js';
import { STANDALONE, VERSION_TEXT } from './version.js';

// A reader that stops early (`offramp tx list --all -o ndjson | head -1`) closes the pipe:
// that is the reader's choice, not a failure, so end quietly instead of a stack trace.
// Any other failure to write the output (a full disk under `> file`, an I/O error) means
// the output is incomplete: one line saying so and exit 1, never a trace or an exit 0.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  const failed = outputFailed(err, 'stdout');
  process.stderr.write(`error: ${failed.code}: ${failed.message}\n`);
  process.exit(failed.exitCode);
});
// With stderr closed, a message that cannot be written is lost, but the exit code must
// not be: a failed write there is not allowed to end the run as a crash (exit 1).
process.stderr.on('error', () => undefined);

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // The most-run command of scripts and installers answers before the parser loads.
  process.stdout.write(`${VERSION_TEXT}\n`);
} else {
  // So does `--help`, from the text the build rendered through commander (help/snapshot.ts).
  // `offramp help tx create` is `offramp tx create --help`, so the snapshot answers it too.
  const help = helpFromSnapshot(helpCommandAsFlag(argv), process.stdout.isTTY ? process.stdout.columns : undefined, readHelpSnapshot);
  if (help !== undefined) process.stdout.write(help);
  else runToExit(argv);
}

/**
 * Runs the command and exits with its code. (Not a top-level await: dist/ is CommonJS, see
 * scripts/build.mjs.) A run that never settles, its event loop drained, would otherwise
 * end with exit 0 as if it had succeeded; Node gave such an await exit 13, this exit 1.
 */
function runToExit(args: readonly string[]): void {
  let settled = false;
  // beforeExit: the event loop drained by itself (not a process.exit, e.g. on EPIPE).
  process.once('beforeExit', () => {
    if (settled) return;
    process.stderr.write('error: INTERNAL: the command stopped before it finished (a bug: please report it)\n');
    process.exitCode = 1;
  });
  void run(args).then((code) => {
    settled = true;
    process.exitCode = code;
  });
}

function readHelpSnapshot(): HelpSnapshot | undefined {
  try {
    // The standalone executable carries the snapshot inside itself (an asset of Node's
    // single-executable application, scripts/build-binary.mjs): it reads no file beside it.
    const text = STANDALONE ? process.getBuiltinModule('node:sea').getAsset('help.json', 'utf8') : readFileSync(new URL('./help.json', import.meta.url), 'utf8');
    return JSON.parse(text) as HelpSnapshot;
  } catch {
    return undefined; // not built (running from source): commander renders it
  }
}

async function run(args: readonly string[]): Promise<number> {
  const { main } = await import('./cli.js');
  const retryBase = process.env.OFFRAMP_RETRY_BASE_MS;
  return main(args, {
    stdin: () => process.stdin,
    stdinIsTTY: isatty(0),
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    // Backoff base for retries (default 250 ms); CI scripts and tests shorten it.
    ...(retryBase && /^\d+$/.test(retryBase) ? { backoffBaseMs: Number(retryBase) } : {}),
  });
}
