import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sign, verify } from '../../src/lib/signature.js';

describe('webhook signature', () => {
  const body = '{"id":"e1","type":"transaction.created","data":{}}';

  it('is lowercase hex HMAC-SHA256 of the raw body keyed with the secret', () => {
    const expected = createHmac('sha256', 'whsec_test').update(body).digest('hex');
    expect(sign(body, 'whsec_test')).toBe(expected);
    expect(sign(body, 'whsec_test')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('verifies the right signature, in either case, and nothing else', () => {
    const sig = sign(body, 'whsec_test');
    expect(verify(body, 'whsec_test', sig)).toBe(true);
    expect(verify(body, 'whsec_test', sig.toUpperCase())).toBe(true);
    expect(verify(body, 'whsec_other', sig)).toBe(false);
    expect(verify(`${body} `, 'whsec_test', sig)).toBe(false);
    expect(verify(body, 'whsec_test', sig.slice(0, 63))).toBe(false);
    expect(verify(body, 'whsec_test', undefined)).toBe(false);
    expect(verify(body, 'whsec_test', 'zz'.repeat(32))).toBe(false);
  });
});
