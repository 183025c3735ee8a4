// Process entry: run one command with the real streams, then exit with its code.
import { main } from './cli.js';

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
