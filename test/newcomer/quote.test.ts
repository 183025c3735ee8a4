// `quote` shows the other side of the trade (issue #16, item 4): the token to send for an
// NGN amount, the NGN paid for a token amount, at the adjusted rate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otherSide } from '../../src/commands/quote.js';
import { runCli } from '../helpers/cli.js';
import { emulatorFor } from '../helpers/emulator.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => {
  emu = await emulatorFor();
});
afterAll(() => emu.close());

describe('quote', () => {
  it('shows the token to send for an NGN amount, and the NGN paid for a token amount', async () => {
    const fiat = await runCli(['quote', '--token', 'usdt', '--network', 'bep20', '--fiat-amount', '150000'], { env: emu.env });
    expect(fiat.code, fiat.stderr).toBe(0);
    // The emulator's adjusted rate is 1542.25 NGN per USDT (docs/emulator.md).
    expect(fiat.stdout).toMatch(/to send\s+≈ 97\.260496 USDT for 150000 NGN/);
    const crypto = await runCli(['quote', '--token', 'usdt', '--network', 'bep20', '--crypto-amount', '100'], { env: emu.env });
    expect(crypto.stdout).toMatch(/paid out\s+≈ 154225\.00 NGN for 100 USDT/);
  });

  it('rounds down, exactly, with decimal arithmetic', () => {
    expect(otherSide({ fiat_amount: '1' }, '3', 'usdt')).toEqual(['to send', '≈ 0.333333 USDT for 1 NGN']);
    expect(otherSide({ crypto_amount: '0.123456789' }, '1542.25', 'usdt')).toEqual(['paid out', '≈ 190.40 NGN for 0.123456789 USDT']);
  });
});
