// Runs `main(argv)` in process, with in-memory streams: the whole CLI path (parsing,
// context, command, error mapping) without the ~0.4 s of spawning the binary. For the
// many small cases (validation, exit codes against a scripted server); the built binary
// stays the subject of the end-to-end tests. `now` and `sleep` can be faked.
import { PassThrough } from 'node:stream';
import { main, type MainOptions } from '../../src/cli.js';
import { tempHome } from './cli.js';

export type MainResult = { code: number; stdout: string; stderr: string };

export async function runMain(
  args: string[],
  opts: {
    env?: Record<string, string | undefined>;
    now?: () => Date;
    sleep?: (ms: number) => Promise<void>;
    stdin?: string | Buffer;
    /** stdout plays a terminal this many columns wide */
    columns?: number;
    /** stderr plays a terminal this many columns wide (with the cursor moves a spinner makes) */
    stderrColumns?: number;
  } = {},
): Promise<MainResult> {
  const stdin = new PassThrough();
  stdin.end(opts.stdin ?? '');
  const stdout: PassThrough & { isTTY?: boolean; columns?: number } = new PassThrough();
  if (opts.columns !== undefined) Object.assign(stdout, { isTTY: true, columns: opts.columns });
  const stderr = new PassThrough();
  if (opts.stderrColumns !== undefined) Object.assign(stderr, { isTTY: true, columns: opts.stderrColumns, ...cursorMoves(stderr) });
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  // A fresh home unless the test gives one: no run ever reads or writes a real profile.
  const env: NodeJS.ProcessEnv = { ...tempHome().env, CI: 'true', NO_COLOR: '1', ...opts.env } as NodeJS.ProcessEnv;
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const options: MainOptions = {
    stdin,
    stdout,
    stderr,
    env,
    backoffBaseMs: 1,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.sleep ? { sleep: opts.sleep } : {}),
  };
  const code = await main(args, options);
  return { code, stdout: out, stderr: err };
}

/** What a tty.WriteStream adds to a stream, as the escape sequences it writes. */
function cursorMoves(stream: PassThrough) {
  const csi = (seq: string) => stream.write(`\x1b[${seq}`);
  return {
    cursorTo: (x: number) => csi(`${x + 1}G`),
    moveCursor: (dx: number, dy: number) => {
      if (dx !== 0) csi(dx < 0 ? `${-dx}D` : `${dx}C`);
      return dy === 0 || csi(dy < 0 ? `${-dy}A` : `${dy}B`);
    },
    clearLine: (dir: number) => csi(dir < 0 ? '1K' : dir > 0 ? '0K' : '2K'),
  };
}
