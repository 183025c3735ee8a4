// Runs the built `offramp` binary in a pseudo-terminal, so that stdin and stderr are TTYs
// and the real @inquirer prompts run, by way of util-linux `script` (no native module).
// The test waits for a prompt's text, then types its answer, as a person would.
import { spawn } from 'node:child_process';
import { BIN } from './cli.js';

export type PtyResult = {
  code: number | null;
  /** Everything written, escapes and carriage returns removed: text a spinner erased stays. */
  output: string;
  /** The lines as the terminal shows them at the end (see screenOf). */
  screen: string;
  /**
   * The bytes as the terminal received them (the pty turns each LF into CRLF), to check
   * that no control character of the data's own got through.
   */
  raw: string;
};

export type PtySession = {
  /** Everything the terminal showed so far, ANSI escapes removed. */
  readonly output: string;
  /** Resolves once `pattern` appears in the output after `from` (default: anywhere). */
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<void>;
  /** Types raw keys (e.g. 'abc', KEYS.enter). */
  type(keys: string): void;
  /** Resolves when the process ends. */
  done: Promise<PtyResult>;
};

export const KEYS = { enter: '\r', down: '\x1b[B', up: '\x1b[A', backspace: '\x7f', ctrlC: '\x03' } as const;

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>78]/g;

/**
 * What a terminal shows after `raw`: a carriage return or a move to a column goes back on
 * the line, an erase-line sequence erases, other escapes (colour, cursor up) are dropped.
 * Enough for spinners (ora rewrites its line with CSI G and CSI K) and prompts' redraws
 * of one line; not a full terminal.
 */
export function screenOf(raw: string): string {
  const lines: string[] = [];
  let line: string[] = [];
  let col = 0;
  // eslint-disable-next-line no-control-regex
  for (const m of raw.matchAll(/\x1b\[([0-9;?]*)[ -/]*([@-~])|\x1b[()][0-9A-B]|\x1b[=>78]|\r|\n|[^\x1b\r\n]/gu)) {
    const [token, arg = '', final] = m;
    if (token === '\n') {
      lines.push(line.join(''));
      line = [];
      col = 0;
    } else if (token === '\r') col = 0;
    else if (final === 'G') col = Math.max(0, (Number(arg) || 1) - 1);
    else if (final === 'K') line = arg === '2' ? [] : arg === '1' ? [...Array<string>(col).fill(' '), ...line.slice(col)] : line.slice(0, col);
    else if (!token.startsWith('\x1b')) {
      while (line.length < col) line.push(' ');
      line[col++] = token;
    }
  }
  lines.push(line.join(''));
  return lines.join('\n');
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** `stdoutTo`: a file stdout goes to instead of the terminal (stderr stays on it). */
export function runInPty(args: string[], env: Record<string, string | undefined>, timeoutMs = 20_000, cols = 120, stdoutTo?: string): PtySession {
  // A pty made by `script` from a pipe has no size (0 columns); give it a real one first.
  const redirect = stdoutTo !== undefined ? ` > ${quote(stdoutTo)}` : '';
  const command = `stty cols ${cols} rows 40 2>/dev/null; ${[process.execPath, BIN, ...args].map(quote).join(' ')}${redirect}`;
  const fullEnv: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    TMPDIR: process.env.TMPDIR,
    TERM: 'xterm-256color',
    NO_COLOR: '1',
    OFFRAMP_RETRY_BASE_MS: '5',
    ...env,
  };
  delete fullEnv.CI;
  for (const key of Object.keys(fullEnv)) if (fullEnv[key] === undefined) delete fullEnv[key];
  // -q quiet, -f flush each write, -e exit with the child's code, -c the command; no log file.
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: fullEnv as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let raw = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    raw += d.toString('utf8');
    for (const w of waiters) w();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const clean = () => raw.replace(ANSI, '').replace(/\r/g, '');
  const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<PtyResult>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(killer);
      for (const w of waiters) w();
      resolve({ code, output: clean(), screen: screenOf(raw), raw });
    });
  });
  let exited = false;
  void done.then(() => (exited = true));
  return {
    get output() {
      return clean();
    },
    waitFor(pattern, ms = 10_000) {
      const test = () => (typeof pattern === 'string' ? clean().includes(pattern) : pattern.test(clean()));
      if (test()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${String(pattern)}; terminal so far:\n${clean()}`));
        }, ms);
        const check = () => {
          if (test()) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          } else if (exited) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`process ended before ${String(pattern)}; terminal:\n${clean()}`));
          }
        };
        waiters.add(check);
      });
    },
    type(keys) {
      child.stdin.write(keys);
    },
    done,
  };
}
