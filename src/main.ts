// Process entry: run one command with the real streams, then exit with its code.
import { main } from './cli.js';

// A reader that stops early (`offramp tx list --all -o ndjson | head -1`) closes the pipe:
// that is the reader's choice, not a failure, so end quietly instead of a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const retryBase = process.env.OFFRAMP_RETRY_BASE_MS;
const code = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  // Backoff base for retries (default 250 ms); CI scripts and tests shorten it.
  ...(retryBase && /^\d+$/.test(retryBase) ? { backoffBaseMs: Number(retryBase) } : {}),
});
process.exitCode = code;
