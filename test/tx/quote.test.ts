// `quote` shows the other side of the trade (issue #16, item 4): the token to send for an
// NGN amount, the NGN paid for a token amount, at the adjusted rate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otherSide } from '../../src/commands/quote.js';
import { emulatorFor } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => {
  emu = await emulatorFor();
});
afterAll(() => emu.close());

describe('quote', () => {
  it('shows the token to send for an NGN amount, and the NGN paid for a token amount', async () => {
    const fiat = await runMain(['quote', '--token', 'usdt', '--network', 'bep20', '--fiat-amount', '150000'], { env: emu.env });
    expect(fiat.code, fiat.stderr).toBe(0);
    // The emulator's adjusted rate is 1542.25 NGN per USDT (docs/emulator.md).
    expect(fiat.stdout).toMatch(/to send\s+≈ 97\.260496028529745501 USDT for 150000 NGN \(rounded down to 18 decimals\)/);
    const crypto = await runMain(['quote', '--token', 'usdt', '--network', 'bep20', '--crypto-amount', '100'], { env: emu.env });
    // 100 × 1542.25 is exact: nothing was rounded, so nothing is said about rounding.
    expect(crypto.stdout).toMatch(/paid out\s+≈ 154225\.00 NGN for 100 USDT$/m);
  });

  it('rounds down, exactly, once, and says so when it changed the figure', () => {
    expect(otherSide({ fiat_amount: '1' }, '3', 'usdt')).toEqual(['to send', '≈ 0.333333333333333333 USDT for 1 NGN (rounded down to 18 decimals)']);
    expect(otherSide({ fiat_amount: '150000' }, '1500', 'usdt')).toEqual(['to send', '≈ 100 USDT for 150000 NGN']);
    // 2/3 to 18 places is ...666, not ...667: down, even where half-up would go up.
    expect(otherSide({ fiat_amount: '2' }, '3', 'usdt')[1]).toBe('≈ 0.666666666666666666 USDT for 2 NGN (rounded down to 18 decimals)');
    // A quotient whose 21st significant digit decides: decimal.js's default 20 digits would round it up to 1.
    expect(otherSide({ fiat_amount: '99999999999999999999.99' }, '100000000000000000000', 'usdt')[1]).toBe(
      '≈ 0.999999999999999999 USDT for 99999999999999999999.99 NGN (rounded down to 18 decimals)',
    );
    expect(otherSide({ crypto_amount: '0.123456789' }, '1542.25', 'usdt')).toEqual(['paid out', '≈ 190.40 NGN for 0.123456789 USDT (rounded down to the kobo)']);
    expect(otherSide({ crypto_amount: '0.000000000000000001' }, '1542.25', 'usdt')[1]).toBe('≈ 0.00 NGN for 0.000000000000000001 USDT (rounded down to the kobo)');
  });
});
