// "Resumable": an export to --out, with --resume or without, keeps its finished slices and
// a checkpoint beside FILE (FILE.offramp-resume); killed midway (SIGKILL: nothing of it
// runs), the same command with --resume continues it; interrupted (Ctrl-C, SIGTERM), it
// prints the command that does, and that command fetches only the slices not finished: the
// file holds every row exactly once, byte for byte what one uninterrupted export writes.
// A checkpoint made for another query is refused. The runs that are killed or
// interrupted, and the one after a SIGKILL whose TMPDIR is inspected, are the built binary
// in child processes; the others run `main` in process. A run is stopped midway by a gate
// in front of the emulator that holds its requests after the first few, not by a slow
// service.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactSum } from '../helpers/decimal.js';
import { emulatorFor } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { behindGate, day, freshDir, leftovers, resumeDirOf, spawnExport, tempsOf, until } from './export-helpers.js';

/** Rows in the ledger: enough for every one of the export's slices to hold some. */
const ROWS = 2000;
/** Requests a stopped run gets answered: some slices finish, the rest wait at the gate. */
const PASSING = 24;

let emu: Awaited<ReturnType<typeof emulatorFor>>;
/** The ledger as one uninterrupted export writes it. */
let whole: string;

const WINDOW = ['--from', day(-180), '--to', day(0)];

beforeAll(async () => {
  emu = await emulatorFor({ seedRevenue: ROWS, seed: 23, rateLimit: 0 });
  const dir = freshDir('offramp-resume-ref-');
  const done = await runMain(['revenue', 'export', ...WINDOW, '--out', join(dir, 'whole.csv')], { env: emu.env });
  expect(done.code, done.stderr).toBe(0);
  whole = readFileSync(join(dir, 'whole.csv'), 'utf8');
});
afterAll(() => emu.close());

/** The emulator behind a gate of its own: the checkpoint is bound to the service's URL, so every run of a test goes through it. */
const gated = () => behindGate(emu, PASSING);

/** `offramp revenue export ARGS` in process. */
const exportInProcess = (args: string[], env: Record<string, string>) => runMain(['revenue', 'export', ...args], { env });

/** Rows of the finished slices the checkpoint for `out` lists so far (0 while there is none). */
function checkpointed(out: string): number {
  try {
    const cp = JSON.parse(readFileSync(join(resumeDirOf(out), 'checkpoint.json'), 'utf8')) as { slices: { rows: number }[] };
    return cp.slices.reduce((n, s) => n + s.rows, 0);
  } catch {
    return 0; // not written yet
  }
}

/** An output directory, a TMPDIR, and the file to export to. */
function places() {
  const dir = freshDir('offramp-resume-out-');
  return { dir, tmp: freshDir('offramp-resume-tmp-'), out: join(dir, 'ledger.csv') };
}

function expectEveryRowOnce(text: string) {
  expect(text).toBe(whole);
  const ids = text.split('\r\n').slice(1, -1).map((line) => line.split(',')[0]);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.length).toBe(ROWS);
}

/** An export to `out` through `env`'s gate, stopped by `signal` once its checkpoint holds rows and the rest waits at the gate. */
async function stopMidway(out: string, tmp: string, signal: NodeJS.Signals, { door, env }: Awaited<ReturnType<typeof gated>>, extra: string[] = ['--resume']) {
  const run = spawnExport([...WINDOW, '--out', out, ...extra], { env, tmp });
  expect(await until(() => door.held() > 0 && checkpointed(out) > 0), `never checkpointed: ${run.stderr()}`).toBe(true);
  run.child.kill(signal);
  // Answered after the signal, as a slow service would (an interrupted run waits for the
  // requests it has out).
  door.open();
  return run.done;
}

describe('revenue export --resume', { timeout: 30_000 }, () => {
  it('killed midway (SIGKILL), the same command continues it: every row exactly once, nothing left', async () => {
    const { dir, tmp, out } = places();
    const service = await gated();
    const killed = await stopMidway(out, tmp, 'SIGKILL', service);
    expect(killed.signal).toBe('SIGKILL');
    const kept = checkpointed(out);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(ROWS);
    expect(readdirSync(dir).filter((n) => n === 'ledger.csv')).toEqual([]);

    const again = await spawnExport([...WINDOW, '--out', out, '--resume'], { env: service.env, tmp }).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Exported 2,000 rows \(\d+ slices, \d+ pages\) to .* in [\d.]+ s; [\d,]+ of them from the checkpoint/);
    expectEveryRowOnce(readFileSync(out, 'utf8'));
    // The killed run's temporary file beside FILE and its spools are gone.
    expect(readdirSync(dir)).toEqual(['ledger.csv']);
    expect(leftovers(tmp)).toEqual([]);
  });

  it.each([
    ['SIGINT', 130, ['--resume']],
    ['SIGINT', 130, []],
    ['SIGTERM', 143, []],
  ] as const)('stopped by %s (exit %i), with %j: the checkpoint kept (0600), and the command printed continues it', async (signal, code, extra) => {
    const { dir, tmp, out } = places();
    const service = await gated();
    const stopped = await stopMidway(out, tmp, signal, service, [...extra]);
    expect(stopped.code).toBe(code);
    expect(stopped.stderr).toContain(`error: INTERRUPTED: export interrupted (${signal}); ${out} was not written`);
    const hint = /^hint: continue it with: (.*)$/m.exec(stopped.stderr)?.[1];
    expect(hint).toBe(`offramp revenue export --from ${day(-180)}T00:00:00.000Z --to ${day(0)}T23:59:59.999Z --out ${out} --resume`);
    expect(tempsOf(dir, 'ledger.csv')).toEqual([]);
    expect(readdirSync(dir)).toEqual(['ledger.csv.offramp-resume']);
    expect(readdirSync(resumeDirOf(out))).not.toContain('lock');
    expect(statSync(join(resumeDirOf(out), 'checkpoint.json')).mode & 0o777).toBe(0o600);
    expect(checkpointed(out)).toBeGreaterThan(0);

    // The command as printed (no word of it needs quoting here), run as given.
    const [program, ...words] = hint!.split(' ');
    expect(program).toBe('offramp');
    const again = await runMain(words, { env: service.env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/; [\d,]+ of them from the checkpoint/);
    expectEveryRowOnce(readFileSync(out, 'utf8'));
    expect(readdirSync(dir)).toEqual(['ledger.csv']);
  });

  it("a checkpoint the previous release wrote (version 2, each slice's totals in it) resumes; the manifest's totals are the file's", async () => {
    const { dir, tmp, out } = places();
    const service = await gated();
    await stopMidway(out, tmp, 'SIGKILL', service);
    const path = join(resumeDirOf(out), 'checkpoint.json');
    const cp = JSON.parse(readFileSync(path, 'utf8')) as { version: number; slices: object[]; binding: Record<string, unknown> };
    expect(cp.version).toBe(3);
    // Totals that are not the slices': a resumed export sums the rows it writes, not these.
    const stale = { usdt: { rows: 1, crypto_amount: '1', amount: '1', platform_fee: '1', share: '1' } };
    // As the previous release wrote it: no zone either (its exports were cut in UTC).
    const { tz, ...binding } = cp.binding;
    expect(tz).toBe('UTC');
    writeFileSync(path, JSON.stringify({ ...cp, version: 2, binding, slices: cp.slices.map((s) => ({ ...s, totals: stale })) }), { mode: 0o600 });

    const again = await exportInProcess([...WINDOW, '--out', out, '--manifest', join(dir, 'm.json'), '--resume'], service.env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/; [\d,]+ of them from the checkpoint/);
    expectEveryRowOnce(readFileSync(out, 'utf8'));
    const manifest = JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8')) as { totals: { rows: number; fiat: { share: string } } };
    const lines = whole.split('\r\n').slice(0, -1).map((line) => line.split(','));
    const share = lines[0]!.indexOf('share');
    expect(manifest.totals.rows).toBe(ROWS);
    expect(manifest.totals.fiat.share).toBe(exactSum(lines.slice(1).map((cells) => cells[share]!)));
  });

  it('a checkpoint for another query is refused; without --resume the export starts over and replaces it', async () => {
    const { dir, tmp, out } = places();
    const service = await gated();
    await stopMidway(out, tmp, 'SIGKILL', service);

    const other = await exportInProcess(['--from', day(-90), '--to', day(0), '--out', out, '--resume'], service.env);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`error: USAGE: --resume: the checkpoint for ${out} belongs to another export (--from ${day(-180)}T00:00:00.000Z --to ${day(0)}T23:59:59.999Z -o csv); this one differs in --from`);
    const json = await exportInProcess([...WINDOW, '-o', 'ndjson', '--out', out, '--resume'], service.env);
    expect(json.code).toBe(2);
    // The format follows the file's name: another format is another file, another checkpoint.
    expect(json.stderr).toContain(`-o ndjson contradicts --out ${out}`);
    expect(existsSync(resumeDirOf(out))).toBe(true);

    const fresh = await exportInProcess([...WINDOW, '--out', out], service.env);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).toContain(`note: an interrupted export to ${out} could have been continued with --resume; this run starts over, replacing its checkpoint`);
    expectEveryRowOnce(readFileSync(out, 'utf8'));
    expect(readdirSync(dir)).toEqual(['ledger.csv']);
  });

  it('--resume without a checkpoint is a whole export; --resume needs --out', async () => {
    const { dir, out } = places();
    const first = await exportInProcess([...WINDOW, '--out', out, '--resume'], emu.env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/from the checkpoint/);
    expectEveryRowOnce(readFileSync(out, 'utf8'));
    expect(readdirSync(dir)).toEqual(['ledger.csv']);
    const bare = await exportInProcess([...WINDOW, '--resume'], emu.env);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('error: USAGE: --resume needs --out FILE');
  });
});
