// "Nothing left behind": however an export ends (success, an error of the service,
// Ctrl-C, SIGTERM, SIGHUP, a reader that closed stdout, a full disk), neither its temporary
// file beside --out nor anything in TMPDIR (its spools) remains, and the ending is one line
// on stderr with the command that continues it (or a quiet exit 0 for a reader that closed
// early), never a stack trace. What an export to --out that did not finish keeps is its
// checkpoint beside FILE, for that command. The built binary in a child process, each run
// with a TMPDIR of its own to list afterwards. A run is caught midway by a gate in front of
// the emulator that holds its requests after the first few, not by a slow service.
import { closeSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor } from '../helpers/emulator.js';
import { mountTmpfs, unmount } from '../helpers/tmpfs.js';
import { errorBody, json, scriptedServer, type Answer } from '../helpers/server.js';
import { behindGate, day, freshDir, ledgerRow, leftovers, sizeOf, spawnExport, tempsOf, until } from './export-helpers.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => {
  // 2,000 rows: more than the 64 KiB disks below hold, and some for each of the export's slices.
  emu = await emulatorFor({ seedRevenue: 2000, seed: 11, rateLimit: 0 });
});
afterAll(() => emu.close());

/** The emulator behind a gate that answers a run's first 24 requests and holds the rest (later slices) until opened. */
const gated = () => behindGate(emu, 24);

const WINDOW = ['--from', day(-180), '--to', day(0)];
/** What every export of WINDOW says first: it reaches into today. */
const OPEN = `warning: the window reaches into today (${day(0)} UTC), which is not over: its figures can still change; close a month once it is over`;

/** An export to a file, caught once rows are in its temporary file and later slices wait at the gate. */
async function midway(extra: string[] = []) {
  const dir = freshDir('offramp-end-out-');
  const tmp = freshDir('offramp-end-tmp-');
  const out = join(dir, 'ledger.csv');
  const { door, env } = await gated();
  const run = spawnExport([...WINDOW, '--out', out, ...extra], { env, tmp });
  const caught = await until(() => {
    const temp = tempsOf(dir, 'ledger.csv')[0];
    return door.held() > 0 && temp !== undefined && sizeOf(join(dir, temp)) > 2000;
  });
  expect(caught, `never saw the export midway: ${run.stderr()}`).toBe(true);
  return { dir, tmp, out, run, door };
}

describe('an export that ends early leaves nothing behind', { timeout: 30_000 }, () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 130],
  ] as const)('%s: exit %i, one line and the command that continues it, no temporary file, nothing in TMPDIR', async (signal, code) => {
    // The requests held at the gate are never answered, and --timeout is past the test's own
    // limit: the run must let go of them at the signal, not wait for their deadline.
    const { dir, tmp, out, run } = await midway(['--timeout', '120000']);
    run.child.kill(signal);
    const done = await run.done;
    expect(done.code, done.stderr).toBe(code);
    expect(done.stderr.trim().split('\n')).toEqual([
      OPEN,
      `error: INTERRUPTED: export interrupted (${signal}); ${out} was not written`,
      `hint: continue it with: offramp revenue export --from ${day(-180)}T00:00:00.000Z --to ${day(0)}T23:59:59.999Z --out ${out} --resume`,
    ]);
    expect(readdirSync(dir)).toEqual(['ledger.csv.offramp-resume']);
    expect(leftovers(tmp)).toEqual([]);
  });

  it('a reader that closes stdout early (| head): quiet exit 0, nothing in TMPDIR', async () => {
    const tmp = freshDir('offramp-end-tmp-');
    const { door, env } = await gated();
    const run = spawnExport(WINDOW, { env, tmp });
    let seen = 0;
    run.child.stdout!.on('data', (d: string) => (seen += d.length));
    expect(await until(() => seen > 2000 && door.held() > 0)).toBe(true);
    run.child.stdout!.destroy();
    door.open();
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toBe(`${OPEN}\n`);
    expect(leftovers(tmp)).toEqual([]);
  });

  it('a full disk under stdout (/dev/full): one line, exit 1, no stack trace, no spool', async () => {
    const tmp = freshDir('offramp-end-tmp-');
    const full = openSync('/dev/full', 'w');
    try {
      const run = spawnExport(WINDOW, { env: emu.env, tmp, stdio: ['ignore', full, 'pipe'] });
      const done = await run.done;
      expect(done.code, done.stderr).toBe(1);
      expect(done.stderr.trim()).toBe(`${OPEN}\nerror: DISK_FULL: no space left on the device (stdout)`);
      expect(leftovers(tmp)).toEqual([]);
    } finally {
      closeSync(full);
    }
  });

  it.for([
    ['the --out directory (the file, its checkpoint and spools)', 'out'],
    ['the spools of an export to stdout (TMPDIR)', 'tmp'],
  ] as const)('a full disk under %s: one line, exit 1, no temporary file, no spool', async ([, which], ctx) => {
    const dir = freshDir('offramp-end-out-');
    const tmp = freshDir('offramp-end-tmp-');
    const small = which === 'out' ? dir : tmp;
    const refused = mountTmpfs(small);
    if (refused) ctx.skip(refused);
    try {
      const out = join(dir, 'ledger.csv');
      const done = await spawnExport([...WINDOW, ...(which === 'out' ? ['--out', out] : []), '--concurrency', '8'], { env: emu.env, tmp }).done;
      expect(done.code, done.stderr).toBe(1);
      expect(done.stderr).toMatch(/^error: DISK_FULL: /m);
      expect(done.stderr).not.toMatch(/\n\s+at /);
      // What finished slices fitted stays for the continuing command; nothing else.
      expect(readdirSync(dir).filter((name) => name !== 'ledger.csv.offramp-resume')).toEqual([]);
      expect(leftovers(tmp)).toEqual([]);
    } finally {
      unmount(small);
    }
  });

  it('a service error mid-export (5xx after the retries): exit 1, no file, no spool', async () => {
    // Slice 1 fails on its second page while slice 2, finished, waits in its spool.
    const first = `${day(-2)}T00:00:00.000Z`;
    const page = (data: unknown[], next: string | null) => json(200, { success: true, data: { data, has_more: next !== null, limit: 100, next_cursor: next } });
    const answer: Answer = (req, res) => {
      const url = new URL(req.url, 'http://x');
      const from = url.searchParams.get('from');
      if (from === first && !url.searchParams.get('cursor')) return page([ledgerRow(1, `${day(-2)}T10:00:00.000Z`)], 'c2')(req, res);
      if (from === first) return json(503, errorBody('UNAVAILABLE', 'try later'))(req, res);
      return page(
        Array.from({ length: 30 }, (_, i) => ledgerRow(100 + i, `${day(-1)}T1${i % 10}:00:00.000Z`)),
        null,
      )(req, res);
    };
    const server = await scriptedServer(Array.from({ length: 12 }, () => answer));
    try {
      const dir = freshDir('offramp-end-out-');
      const tmp = freshDir('offramp-end-tmp-');
      const out = join(dir, 'ledger.csv');
      const run = spawnExport(['--from', day(-2), '--to', day(-1), '--out', out, '--retries', '1'], {
        env: { OFFRAMP_API_KEY: 'sk_test_endings_0001', OFFRAMP_BASE_URL: server.baseUrl, OFFRAMP_CONFIG_DIR: join(tmp, 'config') },
        tmp,
      });
      const done = await run.done;
      expect(done.code, done.stderr).toBe(1);
      expect(done.stderr.split('\n')[0]).toBe(`error: UNAVAILABLE: try later; ${out} was not written`);
      expect(readdirSync(dir)).toEqual(['ledger.csv.offramp-resume']);
      expect(leftovers(tmp)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('success: the file, and nothing else', async () => {
    const dir = freshDir('offramp-end-out-');
    const tmp = freshDir('offramp-end-tmp-');
    const out = join(dir, 'ledger.csv');
    const done = await spawnExport(['--from', day(-30), '--to', day(0), '--out', out], { env: emu.env, tmp }).done;
    expect(done.code, done.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['ledger.csv']);
    expect(leftovers(tmp)).toEqual([]);
  });
});

