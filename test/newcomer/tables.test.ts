// Tables that fit the terminal (issue #16, item 1), under a pseudo-terminal 80 columns
// wide: tx list, tx history, webhooks list and reconcile keep every line within 80
// characters, shortening with `…` and leaving out the least needed columns; --wide and
// piped output show every cell whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitWidths, shorten } from '../../src/lib/output/render.js';
import { runCli } from '../helpers/cli.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runInPty } from '../helpers/pty.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
let ids: string[] = [];
const LONG_REF = 'order-with-a-rather-long-reference-name-0001';

beforeAll(async () => {
  emu = await emulatorFor();
  for (const ref of [LONG_REF, 'short-2']) {
    const r = await runCli(['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', ref, '--json'], { env: emu.env });
    ids.push(JSON.parse(r.stdout).id);
  }
  for (const event of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) {
    await fetch(`${emu.emulator.url}/sandbox/simulate`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ transaction_id: ids[0], event }),
    });
  }
});
afterAll(() => emu.close());

/** The table's lines: messages on stderr (a command to copy, an error) may be longer, and wrap. */
const table = (output: string) => output.split(/\r?\n/).filter((l) => l.trim() !== '' && !/^(Redeliver|error:|hint:|Clean:|transaction \S+: )/.test(l));
const day = new Date().toISOString().slice(0, 10);

describe('tables at 80 columns', { timeout: 60_000 }, () => {
  it.each([
    [['tx', 'list'], /^ID\s+STATUS\s+AMOUNT \(NGN\)\s+CREATED\s+REFERENCE$/],
    [['tx', 'history', 'ID0'], /^CHANGE\s+WHEN\s+REASON/],
    [['webhooks', 'list', '--all'], /^EVENT ID\s+TYPE/],
    [['reconcile', '--from', day, '--to', day], /^TRANSACTION\s+/],
  ])('%s fits', async (args, header) => {
    const s = runInPty(args.map((a) => (a === 'ID0' ? ids[0]! : a)), emu.env, 20_000, 80);
    const r = await s.done;
    // As the terminal shows it: a spinner (reconcile's) erases its line before the table.
    const lines = table(r.screen);
    expect(lines.some((l) => header.test(l)), r.screen).toBe(true);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
  });

  it('tx list shortens ids and references with …, keeping their heads', async () => {
    const r = await runInPty(['tx', 'list'], emu.env, 20_000, 80).done;
    expect(r.output).toContain(`${ids[0]!.slice(0, 9)}`);
    expect(r.output).not.toContain(ids[0]!);
    expect(r.output).toMatch(/order-with-a\S*…/);
  });

  it('--wide, and piped output, show every cell whole', async () => {
    const wide = await runInPty(['tx', 'list', '--wide'], emu.env, 20_000, 80).done;
    expect(wide.output).toContain(ids[0]!);
    expect(wide.output).toContain(LONG_REF);
    const piped = await runCli(['tx', 'list'], { env: emu.env });
    expect(piped.stdout).toContain(ids[0]!);
    expect(piped.stdout).toContain(LONG_REF);
    expect(piped.stdout).toMatch(/CRYPTO/);
  });
});

describe('fitWidths', () => {
  it('drops by rank only when shortening cannot fit, then shortens the widest first', () => {
    // 36 + 10 + 30 + 2 gaps = 80: fits as is.
    expect(fitWidths([36, 10, 30], [{ min: 9 }, undefined, { min: 5 }], 80)).toEqual({ keep: [true, true, true], widths: [36, 10, 30] });
    // 60 wide: shortening is enough; the two shortenable columns end equally slack.
    expect(fitWidths([36, 10, 30], [{ min: 9 }, undefined, { min: 9 }], 60)).toEqual({ keep: [true, true, true], widths: [23, 10, 23] });
    // 30 wide: even at their minimums they do not fit; the droppable one goes.
    expect(fitWidths([36, 10, 30], [{ min: 9 }, undefined, { min: 9, drop: 1 }], 30)).toEqual({ keep: [true, true, false], widths: [18, 10, 30] });
    expect(fitWidths([36, 10], [{ min: 9 }, undefined], undefined)).toEqual({ keep: [true, true], widths: [36, 10] });
    expect(shorten('0b6f3c1e-8d2a-4f51', 9)).toBe('0b6f3c1e…');
  });
});
