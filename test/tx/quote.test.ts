// `quote` shows the other side of the trade at the adjusted rate, as the transaction made
// from the quote will show it (one amount, one way): `≈` because the CLI computed it,
// rounded down to the token's usual decimals, the exact figure in `--json`. `tx create
// --quote` takes the token and network from a quote `offramp quote` made, and refuses a flag
// that contradicts them before anything is sent.
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otherSide } from '../../src/lib/tx/estimate.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { partner } from './partner.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => {
  emu = await emulatorFor();
});
afterAll(() => emu.close());

const quoteId = (stdout: string) => /quote id +(\S+)/.exec(stdout)![1]!;

describe('quote', () => {
  it('shows the token to send as the transaction made from the quote shows it; --json adds the exact figure', async () => {
    const fiat = await runMain(['quote', '--token', 'usdt', '--network', 'bep20', '--fiat-amount', '150000'], { env: emu.env });
    expect(fiat.code, fiat.stderr).toBe(0);
    // The emulator's adjusted rate is 1542.25 NGN per USDT (docs/emulator.md).
    expect(fiat.stdout).toMatch(/^to send +≈ 97\.260496 USDT for 150000 NGN$/m);
    expect(fiat.stderr).toContain(`next: offramp tx create --quote ${quoteId(fiat.stdout)} --ref YOUR_REFERENCE`);

    const created = await runMain(['tx', 'create', '--quote', quoteId(fiat.stdout), '--ref', 'quote-alike-1'], { env: emu.env });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^ {2}crypto amount +97\.260496 USDT$/m);

    const json = await runMain(['quote', '--token', 'usdt', '--network', 'bep20', '--fiat-amount', '150000', '--json'], { env: emu.env });
    const data = JSON.parse(json.stdout);
    expect(data.estimate).toEqual({ crypto_amount: '97.260496028529745501' });
    expect(Object.keys(data)).toEqual(['quote_id', 'base_rate', 'adjusted_rate', 'amount', 'expires_at', 'estimate']);

    const crypto = await runMain(['quote', '--token', 'usdt', '--network', 'bep20', '--crypto-amount', '100'], { env: emu.env });
    expect(crypto.stdout).toMatch(/^paid out +≈ 154225\.00 NGN for 100 USDT$/m);
  });

  it('rounds down, exactly, to the unit the service writes', () => {
    expect(otherSide({ fiat_amount: '1' }, '3', 'usdt')).toEqual(['to send', '≈ 0.333333 USDT for 1 NGN']);
    expect(otherSide({ fiat_amount: '150000' }, '1500', 'usdt')).toEqual(['to send', '≈ 100.000000 USDT for 150000 NGN']);
    // 2/3 is ...666, not ...667: down, even where half-up would go up.
    expect(otherSide({ fiat_amount: '2' }, '3', 'usdc')[1]).toBe('≈ 0.666666 USDC for 2 NGN');
    // A quotient whose 21st significant digit decides: decimal.js's default 20 digits would round it up to 1.
    expect(otherSide({ fiat_amount: '99999999999999999999.99' }, '100000000000000000000', 'usdt')[1]).toBe('≈ 0.999999 USDT for 99999999999999999999.99 NGN');
    expect(otherSide({ crypto_amount: '0.123456789' }, '1542.25', 'usdt')).toEqual(['paid out', '≈ 190.40 NGN for 0.123456789 USDT']);
    expect(otherSide({ fiat_amount: '5' }, '0', 'usdt')).toEqual(['to send', '≈ — USDT for 5 NGN']);
  });
});

describe('tx create --quote', () => {
  it('takes token and network from the quote; a contradicting --network or --token is exit 2, nothing sent', async () => {
    const api = partner(emu.emulator.url, TEST_KEY);
    const q = await runMain(['quote', '--token', 'usdt', '--network', 'bep20', '--crypto-amount', '10'], { env: emu.env });
    const id = quoteId(q.stdout);
    for (const [flags, message] of [
      [['--network', 'trc20'], `--network trc20 contradicts quote ${id}, which is for usdt on bep20`],
      [['--token', 'usdc'], `--token usdc contradicts quote ${id}, which is for usdt on bep20`],
    ] as const) {
      const r = await runMain(['tx', 'create', '--quote', id, ...flags, '--ref', 'quote-contradicted'], { env: emu.env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error: USAGE: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\nhint: leave --\\w+ out: the quote fixes it\n$`));
    }
    expect((await api.call('GET', '/transactions/reference/quote-contradicted')).status).toBe(404);

    const agreed = await runMain(['tx', 'create', '--quote', id, '--token', 'USDT', '--network', 'bep20', '--ref', 'quote-agreed', '--json'], { env: emu.env });
    expect(agreed.code, agreed.stderr).toBe(0);
    expect(JSON.parse(agreed.stdout)).toMatchObject({ network: 'bep20', crypto_currency: 'usdt', crypto_amount: '10.000000' });
  });

  it('remembers quotes in a file of the user alone, holding no key; one others could change is not trusted', async () => {
    const q = await runMain(['quote', '--token', 'usdt', '--network', 'bep20', '--crypto-amount', '10'], { env: emu.env });
    const file = join(emu.home.configDir, 'quotes.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(quoteId(q.stdout));
    expect(text).not.toContain(TEST_KEY);
    chmodSync(file, 0o666);
    try {
      const r = await runMain(['tx', 'create', '--quote', quoteId(q.stdout), '--ref', 'quote-untrusted'], { env: emu.env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: USAGE: missing required flag: --network\n/);
    } finally {
      chmodSync(file, 0o600);
    }
  });

  it('a quote made elsewhere still needs --network without a terminal', async () => {
    const q = await runMain(['quote', '--token', 'usdt', '--network', 'bep20', '--crypto-amount', '10'], { env: emu.env });
    const elsewhere = { ...emu.env, OFFRAMP_CONFIG_DIR: `${emu.home.env.HOME}/other-config` };
    const r = await runMain(['tx', 'create', '--quote', quoteId(q.stdout), '--ref', 'quote-elsewhere'], { env: elsewhere });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: USAGE: missing required flag: --network\n/);
  });
});
