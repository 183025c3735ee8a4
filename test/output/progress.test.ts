// Never a blank wait: the commands that read or send many things (tx list --all, webhooks
// list --all, webhooks replay --failed, reconcile) say what they are doing on a terminal's
// stderr, and clear it before the data, an error, or on Ctrl-C. On a pseudo-terminal
// against the emulator, the built binary; in process, that nothing reaches a stderr that is
// not a terminal, one under CI, or one beside --json.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { KEYS, runInPty, screenOf } from '../helpers/pty.js';
import { partner } from '../tx/partner.js';

const N = 24;
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

let emu: Awaited<ReturnType<typeof emulatorFor>>;
let hook: Server;
let api: ReturnType<typeof partner>;
const allFailed = () =>
  vi.waitUntil(
    async () => {
      const events = (await api.get('/webhooks/events?limit=100')).data as { delivery_status: string }[];
      return events.length === N && events.every((e) => e.delivery_status === 'failed');
    },
    { timeout: 10_000 },
  );
const window = () => ['--from', new Date(Date.now() - 3_600_000).toISOString(), '--to', new Date(Date.now() + 3_600_000).toISOString()];
const file = () => join(mkdtempSync(join(tmpdir(), 'offramp-progress-')), 'out');

beforeAll(async () => {
  // An endpoint that refuses every delivery: each transaction's event ends failed.
  hook = createServer((req, res) => {
    req.resume();
    res.writeHead(503).end();
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  emu = await emulatorFor({ webhookUrl: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`, webhookRetry: { maxAttempts: 1, baseDelayMs: 5 } });
  api = partner(emu.emulator.url, TEST_KEY);
  for (let i = 1; i <= N; i++) await api.create(`progress-${i}`, '5000');
  await allFailed();
});
afterAll(async () => {
  await emu.close();
  await new Promise((r) => hook.close(r));
});

describe('progress on a terminal', { timeout: 60_000 }, () => {
  it('tx list --all into a file: a count on the terminal, cleared at the end; every row in the file', async () => {
    const out = file();
    const r = await runInPty(['tx', 'list', '--all', '--limit', '5', '-o', 'ndjson'], emu.env, 20_000, 80, out).done;
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/reading transactions… [\d,]+ so far/);
    expect(r.screen.trim()).toBe('');
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(N);
  });

  it('tx list --all on the terminal: the progress stops before the first row and never comes back among them', async () => {
    const r = await runInPty(['tx', 'list', '--all', '--limit', '5'], emu.env, 20_000, 80).done;
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(new RegExp(`${SPINNER.source} reading transactions…`));
    // Erased text stays in `output`: none of it after the table's header.
    const header = r.output.indexOf('ID ');
    expect(r.output.lastIndexOf('reading transactions')).toBeLessThan(header);
    const lines = r.screen.trim().split('\n');
    expect(lines[0]).toMatch(/^ID +STATUS/);
    expect(lines.slice(1).filter((l) => /progress-\d+/.test(l))).toHaveLength(N);
    expect(r.screen).not.toMatch(/reading/);
  });

  it('webhooks list --all: a count while it reads, cleared before the table', async () => {
    const r = await runInPty(['webhooks', 'list', '--all', '--limit', '5'], emu.env, 20_000, 120).done;
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/reading webhook events… [\d,]+ so far/);
    const lines = r.screen.trim().split('\n');
    expect(lines[0]).toMatch(/^EVENT ID +TYPE/);
    expect(lines.slice(1)).toHaveLength(N);
    expect(r.screen).not.toMatch(/reading/);
  });

  it('reconcile: what it reads and how much so far, cleared before the table', async () => {
    const r = await runInPty(['reconcile', ...window()], emu.env, 20_000, 120).done;
    // Every event failed: discrepancies, exit 8.
    expect(r.code, r.output).toBe(8);
    expect(r.output).toMatch(/reading transactions… [\d,]+ so far/);
    expect(r.output).toMatch(/reading webhook events… [\d,]+ so far/);
    expect(r.screen.trim().split('\n')[0]).toMatch(/^TRANSACTION +REFERENCE +PROBLEM/);
    expect(r.screen).not.toMatch(/reading/);
  });

  it('webhooks replay --failed: the events it finds, then n/total replayed, cleared before the table', async () => {
    await allFailed();
    const r = await runInPty(['webhooks', 'replay', '--failed'], emu.env, 20_000, 120).done;
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/finding failed events… [\d,]+ so far/);
    expect(r.output).toMatch(new RegExp(`replaying \\d+/${N}`));
    expect(r.output).toContain(`Replay scheduled for ${N} events.`);
    expect(r.screen.trim().split('\n')[0]).toMatch(/^EVENT ID +TYPE/);
    expect(r.screen).not.toMatch(/replaying|finding/);
  });

  it('Ctrl-C clears the line and ends the run as the signal does', async () => {
    // The first page comes at once, every later one hangs: the count stays up until Ctrl-C.
    emu.emulator.addFault({ route: 'GET /transactions', latencyMs: 1, next: 1 });
    emu.emulator.addFault({ route: 'GET /transactions', latencyMs: 30_000 });
    try {
      const s = runInPty(['tx', 'list', '--all', '--limit', '5', '-o', 'ndjson'], emu.env, 20_000, 80, file());
      await s.waitFor(/reading transactions… [\d,]+ so far/);
      s.type(KEYS.ctrlC);
      const r = await s.done;
      expect(r.code).toBe(130);
      expect(r.screen).not.toMatch(/reading/);
      // The cursor the spinner hid is shown again.
      expect(r.raw).toContain('\x1b[?25h');
    } finally {
      emu.emulator.clearFaults();
    }
  });
});

describe('no progress where nobody watches a terminal', { timeout: 60_000 }, () => {
  // runMain: stderr is a stream, not a terminal, and CI is set, as in a pipeline.
  const cli = (args: string[], opts: Parameters<typeof runMain>[1] = {}) => runMain(args, { env: emu.env, ...opts });
  /** stderr a terminal 80 columns wide; CI set or not. */
  const terminal = (ci: boolean) => ({ env: { ...emu.env, CI: ci ? 'true' : undefined }, stderrColumns: 80 });

  it('stderr not a terminal: each command writes only its own lines', async () => {
    const list = await cli(['tx', 'list', '--all', '--limit', '5', '-o', 'ndjson']);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(list.stdout.trimEnd().split('\n')).toHaveLength(N);
    expect(await cli(['webhooks', 'list', '--all', '--limit', '5'])).toMatchObject({ code: 0, stderr: '' });
    const rec = await cli(['reconcile', ...window()]);
    expect(rec.code).toBe(8);
    expect(rec.stderr).toMatch(/^Redeliver every undelivered event: offramp webhooks replay .*\nerror: CHECK_FAILED: .*\n$/);
    await allFailed();
    expect(await cli(['webhooks', 'replay', '--failed'])).toMatchObject({ code: 0, stderr: `Replay scheduled for ${N} events.\n` });
    await allFailed();
  });

  it('a terminal stderr shows it (and clears it); under CI or with --json it stays empty', async () => {
    const args = ['tx', 'list', '--all', '--limit', '5', '-o', 'ndjson'];
    const person = await cli(args, terminal(false));
    expect(person.code).toBe(0);
    expect(person.stderr).toMatch(/reading transactions… [\d,]+ so far/);
    expect(screenOf(person.stderr).trim()).toBe('');

    const ci = await cli(args, terminal(true));
    expect(ci).toMatchObject({ code: 0, stderr: '' });
    const json = await cli(['tx', 'list', '--all', '--limit', '5', '--json'], terminal(false));
    expect(json).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(json.stdout).data).toHaveLength(N);
    // --jq with -o ndjson prints rows, not --json's document, but through jq: no count among them.
    const jq = await cli([...args, '--jq', '.id'], terminal(false));
    expect(jq).toMatchObject({ code: 0, stderr: '' });
    expect(jq.stdout.trimEnd().split('\n')).toHaveLength(N);
    const replay = await cli(['webhooks', 'replay', '--failed', '--json'], terminal(false));
    expect(replay).toMatchObject({ code: 0, stderr: '' });
    await allFailed();
  });
});
