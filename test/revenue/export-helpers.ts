// Shared by the revenue export tests that run the built binary as a user would: one
// export in a child process with a temp dir of its own (so what it leaves there can be
// listed), a gate that stops a run midway by what it has asked, and waits for a condition
// on disk without timing anything.
import { spawn, type StdioOptions } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished, vi } from 'vitest';
import { BIN } from '../helpers/cli.js';

export const DAY_MS = 86_400_000;

/** A ledger row as the service sends it: transaction `n`, stamped `ts`, with `extra` fields over the defaults. */
export function ledgerRow(n: number, ts: string, extra: Record<string, unknown> = {}) {
  return {
    transaction_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    merchant_id: 'merchant-1',
    merchant_reference: `ref-${n}`,
    terminal_id: 'terminal-1',
    crypto_currency: 'usdt',
    network: 'bep20',
    crypto_amount: '6.535948',
    amount: '10000.00',
    platform_fee: '100.00',
    share: '25.00',
    ts,
    ...extra,
  };
}

/** A UTC day `offset` days from today, YYYY-MM-DD. */
export const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);

export type Run = {
  child: ReturnType<typeof spawn>;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  stderr(): string;
};

/** `offramp revenue export ARGS` as a child process; `tmp` is its TMPDIR. */
export function spawnExport(args: string[], opts: { env: Record<string, string | undefined>; tmp: string; stdio?: StdioOptions; timeoutMs?: number }): Run {
  const env: Record<string, string | undefined> = { PATH: process.env.PATH, CI: 'true', NO_COLOR: '1', OFFRAMP_RETRY_BASE_MS: '5', ...opts.env, TMPDIR: opts.tmp };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const child = spawn(process.execPath, [BIN, 'revenue', 'export', ...args], { env: env as NodeJS.ProcessEnv, stdio: opts.stdio ?? ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const killer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return { child, done, stderr: () => stderr };
}

/**
 * A door on loopback in front of the service at `upstream` (a base URL): it forwards the
 * first `passing` requests and holds every later one unanswered, so an export stops midway
 * at the same place however fast or loaded the machine is (no slow service needed to catch
 * it). `open()` forwards the held requests and every later one.
 */
export async function gate(upstream: string, passing: number) {
  const target = new URL(upstream);
  let left = passing;
  const held: (() => void)[] = [];
  const server = createServer((req, res) => {
    const forward = () => {
      // The upstream's own Host, as a reverse proxy sends by default (nginx's proxy_pass).
      const up = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      // A client killed while its request was held or on its way: nothing left to answer.
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (left > 0) left--, forward();
    else held.push(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`,
    /** Requests waiting at the door. */
    held: () => held.length,
    open() {
      left = Infinity;
      for (const forward of held.splice(0)) forward();
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** The emulator `emu` behind a gate of its own for the current test, and the environment that points the CLI at the gate. */
export async function behindGate(emu: { emulator: { url: string }; env: Record<string, string> }, passing: number) {
  const door = await gate(emu.emulator.url, passing);
  onTestFinished(() => door.close());
  return { door, env: { ...emu.env, OFFRAMP_BASE_URL: door.baseUrl } };
}

/** Whether `check` came to hold within 20 s, for an assertion that can say what the run printed; never asserts a duration. */
export function until(check: () => boolean): Promise<boolean> {
  return vi.waitUntil(check, { timeout: 20_000, interval: 25 }).then(() => true, () => false);
}

export function freshDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** What exports left in a temp dir: spools (`offramp-spool-*`), run directories of earlier versions (`offramp-export-*`). */
export function leftovers(tmp: string): string[] {
  return readdirSync(tmp).filter((name) => name.startsWith('offramp-'));
}

/** Where a resumable export to `out` keeps its spools and checkpoint (docs/finance.md, "revenue export"). */
export const resumeDirOf = (out: string) => `${out}.offramp-resume`;

/** Files in `dir` named like FILE's temporary file. */
export function tempsOf(dir: string, base: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith(`${base}.tmp-`));
}

/** Size of the file, 0 when it does not exist. */
export function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * CSV records as a reader takes them: RFC 4180 (quoted fields, doubled quotes, CRLF record
 * ends), fields split on any of `separators` outside quotes, as a spreadsheet import does
 * when told to split on more than the comma.
 */
export function readCsv(text: string, separators: readonly string[] = [',']): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (separators.includes(c)) record.push(field), (field = '');
    else if (c === '\r' && text[i + 1] === '\n') record.push(field), records.push(record), (record = []), (field = ''), i++;
    else field += c;
  }
  return records;
}
