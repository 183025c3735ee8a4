// The interactive mode, driven as a person would: the built binary in a pseudo-terminal
// (util-linux `script`), the real @inquirer prompts, keys typed once each question shows.
// What counts is what the emulator ends up holding.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor } from '../helpers/emulator.js';
import { KEYS, runInPty } from '../helpers/pty.js';
import { emulatorWithPartner, type partner } from './partner.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
let api: ReturnType<typeof partner>;
beforeAll(async () => ({ emu, api } = await emulatorWithPartner()));
afterAll(() => emu.close());

const byRef = async (ref: string) => api.call('GET', `/transactions/reference/${encodeURIComponent(ref)}`);

describe('interactive tx create', { timeout: 60_000 }, () => {
  it('asks mode, token, network, amount (checked as typed) and reference, then confirms a summary', async () => {
    const s = runInPty(['tx', 'create'], emu.env);
    await s.waitFor('Pricing mode');
    s.type(KEYS.enter); // direct, preselected
    await s.waitFor('usdt (staging)');
    s.type(KEYS.enter);
    await s.waitFor('bep20 (staging)');
    s.type(KEYS.enter);
    await s.waitFor('Amount in NGN');
    s.type(`1,000${KEYS.enter}`);
    await s.waitFor('"1,000" is not a plain positive decimal (write it like 150000.50)');
    s.type(KEYS.backspace.repeat(5));
    s.type(`2500.5${KEYS.enter}`);
    await s.waitFor(/Your reference \(merchant_reference\) \(cli-\d{8}-[0-9a-f]{8}\)/);
    s.type(`pty-direct-1${KEYS.enter}`);
    await s.waitFor('about to create:');
    await s.waitFor('Create this transaction?');
    // Nothing is sent before the answer.
    expect((await byRef('pty-direct-1')).status).toBe(404);
    s.type(`y${KEYS.enter}`);
    const r = await s.done;
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/idempotency-key: [0-9a-f-]{36}/);
    const tx = (await byRef('pty-direct-1')).data;
    expect(tx).toMatchObject({ amount: '2500.50', crypto_currency: 'usdt', network: 'bep20', status: 'awaiting_deposit' });
    expect(r.output).toContain(tx.deposit_address);
  });

  it('quote mode: the quote id is checked as typed; the offered reference is taken with Enter', async () => {
    const quoteRun = await api.call('POST', '/quotes', { crypto_currency: 'usdt', network: 'bep20', crypto_amount: '12.5' });
    const quoteId = quoteRun.data.quote_id as string;
    const s = runInPty(['tx', 'create'], emu.env);
    await s.waitFor('Pricing mode');
    s.type(KEYS.down + KEYS.enter);
    await s.waitFor('Quote id');
    s.type(`not-a-quote${KEYS.enter}`);
    await s.waitFor('is not a UUID');
    s.type(KEYS.backspace.repeat('not-a-quote'.length));
    s.type(quoteId + KEYS.enter);
    await s.waitFor('bep20 (staging)');
    s.type(KEYS.enter);
    await s.waitFor('Your reference');
    const offered = /\((cli-\d{8}-[0-9a-f]{8})\)/.exec(s.output)?.[1];
    expect(offered).toBeDefined();
    s.type(KEYS.enter);
    await s.waitFor('Create this transaction?');
    s.type(KEYS.enter); // default yes
    const r = await s.done;
    expect(r.code, r.output).toBe(0);
    expect((await byRef(offered!)).data).toMatchObject({ crypto_amount: '12.500000', merchant_reference: offered });
  });

  it('asks only for what is missing; declining sends nothing (exit 0: the user’s choice, not an error)', async () => {
    const s = runInPty(['tx', 'create', '--fiat-amount', '1000', '--token', 'usdt'], emu.env);
    await s.waitFor('bep20 (staging)');
    s.type(KEYS.enter);
    await s.waitFor('Your reference');
    s.type(KEYS.backspace.repeat(40) + `pty-declined${KEYS.enter}`);
    await s.waitFor('Create this transaction?');
    s.type(`n${KEYS.enter}`);
    const r = await s.done;
    expect(r.code).toBe(0);
    expect(r.output).toContain('transaction "pty-declined" not created: you answered no at the confirmation; nothing was sent');
    expect(r.output).not.toContain('error:');
    expect(r.output).not.toContain('Pricing mode');
    expect(r.output).not.toContain('Amount in NGN');
    expect((await byRef('pty-declined')).status).toBe(404);
  });
});

describe('tx cancel on a terminal', { timeout: 60_000 }, () => {
  it('asks first: "no" leaves the transaction alone and says "not cancelled", "yes" cancels it', async () => {
    const tx = await api.create('pty-cancel-1');
    const no = runInPty(['tx', 'cancel', tx.id], emu.env);
    await no.waitFor(`cancel transaction ${tx.id}?`);
    no.type(`n${KEYS.enter}`);
    const declined = await no.done;
    expect(declined.code).toBe(0);
    expect(declined.output).toContain(`transaction ${tx.id} not cancelled: you answered no at the confirmation; nothing was sent`);
    // Never "cancelled" on its own, which would read as if the transaction had been.
    expect(declined.output.replace(/not cancelled/g, '')).not.toMatch(/cancelled/);
    expect((await api.get(`/transactions/${tx.id}`)).status).toBe('awaiting_deposit');

    const yes = runInPty(['tx', 'cancel', tx.id], emu.env);
    await yes.waitFor(`cancel transaction ${tx.id}?`);
    yes.type(`y${KEYS.enter}`);
    const r = await yes.done;
    expect(r.code, r.output).toBe(0);
    expect((await api.get(`/transactions/${tx.id}`)).status).toBe('cancelled');
  });
});

describe('tx watch on a terminal', { timeout: 60_000 }, () => {
  it('shows a spinner on stderr and a line per change, and ends', async () => {
    const tx = await api.create('pty-watch-1');
    const s = runInPty(['tx', 'watch', tx.id, '--interval', '100', '--until', 'deposit_confirming'], emu.env);
    await s.waitFor('awaiting_deposit, waiting for deposit_confirming');
    await api.simulate(tx.id, 'deposit.detected');
    const r = await s.done;
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (UTC|[+-]\d\d:\d\d) {2}awaiting_deposit → deposit_confirming {2}deposit:detected/);
    expect(r.output).toMatch(/final status: deposit_confirming, deposit detected/);
    expect(r.output).toContain('reached deposit_confirming');
  });
});
