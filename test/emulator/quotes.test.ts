// POST /quotes: rates and spread, exactly one amount, the staging pair, 120 s validity.
import { afterEach, describe, expect, it } from 'vitest';
import { Quote, TransactionSummary } from '../../src/lib/schemas.js';
import { createManualClock } from '../../src/emulator/index.js';
import { closeAll, expectError, expectOk, idemKey, ref, startApi } from './helpers.js';

afterEach(closeAll);

describe('POST /quotes', () => {
  it('answers 201 with base_rate, adjusted_rate (0.5% spread, rounded down), the echoed amount and expiry 120 s ahead', async () => {
    const clock = createManualClock(Date.parse('2026-03-01T12:00:00.000Z'));
    const api = await startApi({ clock });
    const fiat = expectOk(await api.post('/quotes', { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '150000' }), 201, Quote);
    expect(fiat).toMatchObject({ base_rate: '1550.00', adjusted_rate: '1542.25', amount: '150000.00', expires_at: '2026-03-01T12:02:00.000Z' });
    const crypto = expectOk(await api.post('/quotes', { crypto_currency: 'USDT', network: 'BEP20', crypto_amount: '100' }), 201, Quote);
    expect(crypto.amount).toBe('100.000000');
    expect(crypto.quote_id).not.toBe(fiat.quote_id);
  });

  it('takes the market rate from the rate option', async () => {
    const api = await startApi({ rate: '1000' });
    const quote = expectOk(await api.post('/quotes', { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '10' }), 201, Quote);
    expect(quote.base_rate).toBe('1000.00');
    expect(quote.adjusted_rate).toBe('995.00');
  });

  it('refuses both amounts with the spec’s message, and neither amount too', async () => {
    const api = await startApi();
    const both = await api.post('/quotes', { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '10', crypto_amount: '1' });
    expectError(both, 400, 'BAD_REQUEST', /provide either crypto_amount or fiat_amount, not both/);
    expectError(await api.post('/quotes', { crypto_currency: 'usdt', network: 'bep20' }), 400, 'BAD_REQUEST', /provide either crypto_amount or fiat_amount/);
  });

  it('refuses zero, negative and over-precise amounts', async () => {
    const api = await startApi();
    const pair = { crypto_currency: 'usdt', network: 'bep20' };
    expectError(await api.post('/quotes', { ...pair, fiat_amount: '0' }), 400, 'BAD_REQUEST', /fiat_amount must be greater than zero/);
    expectError(await api.post('/quotes', { ...pair, fiat_amount: '-5' }), 400, 'BAD_REQUEST', /greater than zero/);
    expectError(await api.post('/quotes', { ...pair, fiat_amount: '1.005' }), 400, 'BAD_REQUEST', /3 decimal places.*at most 2/);
    expectError(await api.post('/quotes', { ...pair, fiat_amount: '1e3' }), 400, 'BAD_REQUEST', /fiat_amount: expected a decimal string/);
  });

  it('allows only usdt on bep20 in staging mode, naming the allowed pair', async () => {
    const api = await startApi();
    const wrong = await api.post('/quotes', { crypto_currency: 'usdc', network: 'bep20', fiat_amount: '10' });
    expectError(wrong, 400, 'BAD_REQUEST', /limited to crypto_currency usdt on network bep20/);
    expectError(await api.post('/quotes', { crypto_currency: 'usdt', network: 'trc20', fiat_amount: '10' }), 400, 'BAD_REQUEST', /usdt on network bep20/);
  });

  it('accepts the documented production pairs in production mode', async () => {
    const api = await startApi({ mode: 'production' });
    expectOk(await api.post('/quotes', { crypto_currency: 'usdc', network: 'polygon', fiat_amount: '10' }), 201, Quote);
    expectOk(await api.post('/quotes', { crypto_currency: 'usdt', network: 'trc20', fiat_amount: '10' }), 201, Quote);
    expectError(await api.post('/quotes', { crypto_currency: 'dai', network: 'erc20', fiat_amount: '10' }), 400, 'BAD_REQUEST', /unsupported pair dai on erc20; supported: usdt on/);
  });
});

describe('quote validity', () => {
  it('is accepted at creation up to 120 s and refused with 400 after', async () => {
    const clock = createManualClock();
    const api = await startApi({ clock });
    const create = (quoteId: string) =>
      api.post('/transactions', { quote_id: quoteId, network: 'bep20', merchant_reference: ref() }, { idempotencyKey: idemKey() });

    const early = expectOk(await api.post('/quotes', { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '1000' }), 201, Quote);
    const late = expectOk(await api.post('/quotes', { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '1000' }), 201, Quote);
    clock.advance(120_000);
    expectOk(await create(early.quote_id), 201, TransactionSummary);
    clock.advance(1_000);
    expectError(await create(late.quote_id), 400, 'BAD_REQUEST', new RegExp(`quote ${late.quote_id} expired at ${late.expires_at}`));
  });

  it('is one partner’s: an unknown or foreign quote_id is a 400 naming it', async () => {
    const api = await startApi({ apiKeys: ['sk_a', 'sk_b'] });
    const quote = expectOk(await api.post('/quotes', { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '10' }, { key: 'sk_a' }), 201, Quote);
    const foreign = await api.post('/transactions', { quote_id: quote.quote_id, network: 'bep20', merchant_reference: ref() }, { key: 'sk_b', idempotencyKey: idemKey() });
    expectError(foreign, 400, 'BAD_REQUEST', new RegExp(`quote_id ${quote.quote_id} not found`));
  });
});
