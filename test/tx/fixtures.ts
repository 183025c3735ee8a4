// Transaction answers for scripted-server tests: the shapes of the spec, filled in.
export const TX_ID = '0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91';
export const QUOTE_ID = '6f1c2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b';
export const KEY = 'sk_test_scripted_9876';

export function summary(overrides: Record<string, unknown> = {}) {
  return {
    id: TX_ID,
    deposit_address: '0x481242dc1be69733ca8c9536cb6d3879aebfb5ac',
    network: 'bep20',
    expires_at: '2026-11-22T10:30:00.000Z',
    status: 'awaiting_deposit',
    rate: '1542.25',
    amount: '5000.00',
    crypto_amount: '3.242016',
    crypto_currency: 'usdt',
    merchant_reference: 'order-1',
    merchant_id: null,
    terminal_id: null,
    ...overrides,
  };
}

export function snapshot(overrides: Record<string, unknown> = {}) {
  return {
    ...summary(),
    deposit_status: null,
    created_at: '2026-11-22T10:00:00.000Z',
    updated_at: '2026-11-22T10:00:00.000Z',
    confirmations: null,
    confirmed_at: null,
    deposit_id: null,
    received_at: null,
    required_confirmations: null,
    ...overrides,
  };
}

export function history(statuses: string[], overrides: Record<string, unknown> = {}) {
  const rows = [];
  let from = 'pending';
  for (const [i, to] of statuses.entries()) {
    rows.push({ from_status: from, to_status: to, changed_at: `2026-11-22T10:0${i}:00.000Z`, reason: `test:${to}`, metadata: null });
    from = to;
  }
  return { id: TX_ID, status: from, history: rows, ...overrides };
}

export const ok = (data: unknown, message?: string) => ({ success: true, data, ...(message ? { message } : {}) });
