// A transaction named the wrong way gets the right way as a hint, before any request where
// the line alone shows it: a reference given as an id (`tx get order-1`), simulate's
// arguments swapped, and a `simulate walk --ref` naming no transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => (emu = await emulatorFor()));
afterAll(() => emu.close());

const cli = (args: string[]) => runMain(args, { env: emu.env });

describe('did you mean', () => {
  it('a reference given where an id goes: --ref', async () => {
    for (const [args, name] of [[['tx', 'get', 'order-1'], 'ID'], [['tx', 'history', 'order 1'], 'ID'], [['webhooks', 'list', '--tx', 'order-1'], '--tx']] as const) {
      const r = await cli([...args]);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(new RegExp(`^error: USAGE: ${name} ".*" is not a UUID`));
      expect(r.stderr).toMatch(/\nhint: did you mean --ref (order-1|'order 1')\? A reference is given with --ref\n$/);
    }
    // The head of an id that is too short is not a reference: no such hint.
    expect((await cli(['tx', 'get', '0b6f3c'])).stderr).not.toContain('--ref');
  });

  it('simulate with its arguments swapped: the line in the right order', async () => {
    const r = await cli(['simulate', 'deposit.detected', '0b6f3c1e']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe('error: USAGE: TX_ID comes first, then EVENT ("deposit.detected" is an event)\nhint: did you mean: offramp simulate 0b6f3c1e deposit.detected\n');
  });

  it('simulate walk --ref naming no transaction says --ref names an existing one', async () => {
    const r = await cli(['simulate', 'walk', '--ref', 'order-new-1']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: NOT_FOUND: .*\nhint: --ref names an existing transaction's reference; leave it out and simulate walk creates a transaction\n$/);
  });
});
