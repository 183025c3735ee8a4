// The signature catalogue (src/lib/webhooks/signature.ts). Expected signatures are computed here with
// node:crypto directly, so a mistake in the code under test cannot agree with itself.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { detect, schemeSetting, SCHEMES, SIGNATURE_HEADER, sign, verify } from '../../src/lib/webhooks/signature.js';

const body = '{"id":"e1","type":"transaction.created","data":{"id":"tx-1"}}';
const SECRET = 'whsec_test';
const NOW = new Date('2026-11-23T12:00:00.000Z');
const T = Math.floor(NOW.getTime() / 1000);

const mac = (alg: 'sha256' | 'sha512', data: string, secret = SECRET) => createHmac(alg, secret).update(data).digest();
const hex = (alg: 'sha256' | 'sha512', data = body, secret = SECRET) => mac(alg, data, secret).toString('hex');
const b64 = (alg: 'sha256' | 'sha512', data = body, secret = SECRET) => mac(alg, data, secret).toString('base64');
const urlSafe = (s: string) => s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const stamped = (t: number, secret = SECRET, data = body) => `t=${t},v1=${hex('sha256', `${t}.${data}`, secret)}`;

/** What each scheme's signer must emit, computed independently. */
const EXPECTED: Record<(typeof SCHEMES)[number], string> = {
  'hmac-sha256-hex': hex('sha256'),
  'hmac-sha256-base64': b64('sha256'),
  'hmac-sha512-hex': hex('sha512'),
  'hmac-sha512-base64': b64('sha512'),
  'prefixed-sha256-hex': `sha256=${hex('sha256')}`,
  'prefixed-sha512-hex': `sha512=${hex('sha512')}`,
  'timestamped-sha256': stamped(T),
};

describe('signature catalogue: signing', () => {
  it('names exactly the documented schemes, and keeps the header name', () => {
    expect([...SCHEMES].sort()).toEqual(Object.keys(EXPECTED).sort());
    expect(SIGNATURE_HEADER).toBe('x-svc-webhook-signature');
  });

  it('with two arguments signs as the emulator always did: lowercase hex HMAC-SHA256 of the raw body', () => {
    expect(sign(body, SECRET)).toBe(hex('sha256'));
    expect(sign(body, SECRET)).toMatch(/^[0-9a-f]{64}$/);
    expect(sign(Buffer.from(body), SECRET)).toBe(hex('sha256'));
  });

  it.each(SCHEMES)('%s signs as documented and verifies under its own name', (scheme) => {
    const header = sign(body, SECRET, scheme, NOW);
    expect(header).toBe(EXPECTED[scheme]);
    const pinned = verify(body, SECRET, header, { scheme, now: NOW });
    expect(pinned).toEqual({ ok: true, scheme, secretIndex: 0 });
    // Unpinned, it verifies too (reported as itself: each signer's output names its scheme).
    expect(verify(body, SECRET, header, { now: NOW })).toEqual({ ok: true, scheme, secretIndex: 0 });
  });

  it('refuses an unknown scheme when signing', () => {
    expect(() => sign(body, SECRET, 'md5-hex')).toThrow(/unknown signature scheme "md5-hex"/);
  });
});

describe('signature catalogue: accepted forms', () => {
  it('hex in upper or mixed case', () => {
    expect(verify(body, SECRET, hex('sha256').toUpperCase())).toMatchObject({ ok: true, scheme: 'hmac-sha256-hex' });
    expect(verify(body, SECRET, hex('sha512').toUpperCase(), { scheme: 'hmac-sha512-hex' })).toMatchObject({ ok: true });
    const mixed = [...hex('sha256')].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');
    expect(verify(body, SECRET, mixed, { scheme: 'hmac-sha256-hex' }).ok).toBe(true);
  });

  it('an optional sha256= / sha512= prefix (any case) matching the algorithm, on hex and base64', () => {
    expect(verify(body, SECRET, `sha256=${hex('sha256')}`, { scheme: 'hmac-sha256-hex' }).ok).toBe(true);
    expect(verify(body, SECRET, `SHA256=${hex('sha256').toUpperCase()}`, { scheme: 'hmac-sha256-hex' }).ok).toBe(true);
    expect(verify(body, SECRET, `Sha512=${hex('sha512')}`, { scheme: 'hmac-sha512-hex' }).ok).toBe(true);
    expect(verify(body, SECRET, `sha256=${b64('sha256')}`, { scheme: 'hmac-sha256-base64' }).ok).toBe(true);
    expect(verify(body, SECRET, `sha512=${b64('sha512')}`, { scheme: 'hmac-sha512-base64' }).ok).toBe(true);
    // The prefix must name the algorithm that signed.
    expect(verify(body, SECRET, `sha512=${hex('sha256')}`).ok).toBe(false);
    expect(verify(body, SECRET, `sha256=${hex('sha512')}`).ok).toBe(false);
  });

  it('the prefixed schemes require their prefix; unpinned, a prefixed header reports the prefixed scheme', () => {
    expect(verify(body, SECRET, hex('sha256'), { scheme: 'prefixed-sha256-hex' })).toMatchObject({ ok: false });
    expect(verify(body, SECRET, hex('sha512'), { scheme: 'prefixed-sha512-hex' })).toMatchObject({ ok: false });
    expect(verify(body, SECRET, `SHA256=${hex('sha256').toUpperCase()}`, { scheme: 'prefixed-sha256-hex' }).ok).toBe(true);
    expect(verify(body, SECRET, `sha512=${hex('sha512')}`)).toMatchObject({ ok: true, scheme: 'prefixed-sha512-hex' });
  });

  it('base64: standard or url-safe alphabet, with or without padding', () => {
    for (const alg of ['sha256', 'sha512'] as const) {
      const scheme = `hmac-${alg}-base64` as const;
      const std = b64(alg);
      expect(std).toMatch(/=$/);
      for (const form of [std, std.replace(/=+$/, ''), urlSafe(std), `${urlSafe(std)}${std.match(/=+$/)![0]}`]) {
        expect(verify(body, SECRET, form, { scheme }), form).toMatchObject({ ok: true, scheme });
        expect(verify(body, SECRET, form), form).toMatchObject({ ok: true, scheme });
      }
    }
    // A digest whose base64 has both + and /, and - and _ in url-safe form (found by trying bodies).
    let other = '';
    for (let i = 0; !/[+/]/.test(b64('sha256', other)); i++) other = `{"n":${i}}`;
    expect(verify(other, SECRET, urlSafe(b64('sha256', other))).ok).toBe(true);
  });

  it('timestamped: several v1 entries (any may match), other keys ignored, spaces around commas', () => {
    const good = hex('sha256', `${T}.${body}`);
    const wrong = hex('sha256', `${T}.${body}`, 'whsec_old');
    expect(verify(body, SECRET, `t=${T},v1=${wrong},v1=${good}`, { now: NOW })).toMatchObject({ ok: true, scheme: 'timestamped-sha256' });
    expect(verify(body, SECRET, `t=${T}, v0=abc , v1=${good.toUpperCase()} ,k=v`, { now: NOW }).ok).toBe(true);
    expect(verify(body, SECRET, `v1=${good},t=${T}`, { now: NOW }).ok).toBe(true);
    // A v1 of the wrong timestamp, or no v1, or two timestamps: refused.
    expect(verify(body, SECRET, `t=${T + 1},v1=${good}`, { now: NOW }).ok).toBe(false);
    expect(verify(body, SECRET, `t=${T}`, { now: NOW }).ok).toBe(false);
    expect(verify(body, SECRET, `t=${T},t=${T + 1},v1=${good}`, { now: NOW }).ok).toBe(false);
  });

  it('timestamped: within the tolerance both ways (300 s by default, configurable), refused outside with a reason saying so', () => {
    const at = (offsetSec: number) => new Date(NOW.getTime() + offsetSec * 1000);
    const header = stamped(T);
    expect(verify(body, SECRET, header, { now: at(300) }).ok).toBe(true);
    expect(verify(body, SECRET, header, { now: at(-300) }).ok).toBe(true);
    const late = verify(body, SECRET, header, { now: at(301) });
    expect(late).toMatchObject({ ok: false, kind: 'outside-tolerance' });
    expect(late.ok ? '' : late.reason).toMatch(/timestamp \(t=\d+\) is 301 s old, outside the tolerance of 300 s/);
    const early = verify(body, SECRET, header, { now: at(-301) });
    expect(early.ok ? '' : early.reason).toMatch(/301 s in the future, outside the tolerance of 300 s/);
    expect(verify(body, SECRET, header, { now: at(30), toleranceSec: 10 })).toMatchObject({ ok: false, kind: 'outside-tolerance' });
    expect(verify(body, SECRET, header, { now: at(-3000), toleranceSec: 3600 }).ok).toBe(true);
    // A forged one out of tolerance is a mismatch, not "outside the tolerance".
    expect(verify(body, 'whsec_other', header, { now: at(1000) })).toMatchObject({ ok: false, kind: 'mismatch' });
  });
});

describe('signature catalogue: refusals', () => {
  it.each(SCHEMES)('%s: a tampered body, a wrong secret, a truncated or altered signature are refused', (scheme) => {
    const header = EXPECTED[scheme];
    const opts = { now: NOW };
    expect(verify(`${body} `, SECRET, header, opts).ok).toBe(false);
    expect(verify(body.replace('created', 'Created'), SECRET, header, opts).ok).toBe(false);
    expect(verify(body, 'whsec_other', header, opts).ok).toBe(false);
    // Truncated: one or two characters of the digest itself (base64 padding is optional).
    const digestEnd = header.replace(/=+$/, '').length;
    expect(verify(body, SECRET, header.slice(0, digestEnd - 1), opts).ok).toBe(false);
    expect(verify(body, SECRET, header.slice(0, digestEnd - 2), opts).ok).toBe(false);
    // One character changed at the end, where a truncating comparison would not look.
    const last = digestEnd - 1;
    const flipped = header.slice(0, last) + (header[last] === 'A' ? 'B' : 'A') + header.slice(last + 1);
    expect(verify(body, SECRET, flipped, opts).ok).toBe(false);
    expect(verify(body, SECRET, flipped, { ...opts, scheme }).ok).toBe(false);
  });

  it('nothing verifies without a signature, without a secret, or with an unknown pinned scheme', () => {
    expect(verify(body, SECRET, undefined)).toMatchObject({ ok: false, kind: 'no-signature' });
    expect(verify(body, SECRET, '  ')).toMatchObject({ ok: false, kind: 'no-signature' });
    expect(verify(body, [], hex('sha256'))).toMatchObject({ ok: false, kind: 'no-secret' });
    expect(verify(body, '', hex('sha256'))).toMatchObject({ ok: false, kind: 'no-secret' });
    expect(verify(body, SECRET, hex('sha256'), { scheme: 'md5' })).toMatchObject({ ok: false, kind: 'unknown-scheme' });
    expect(verify(body, SECRET, 'zz'.repeat(32))).toMatchObject({ ok: false, kind: 'malformed' });
    // A right digest with one character that is not hex, at the end or inside: not that digest.
    const right = hex('sha256');
    expect(verify(body, SECRET, `${right.slice(0, 63)}g`).ok).toBe(false);
    expect(verify(body, SECRET, `${right.slice(0, 30)}-${right.slice(31)}`).ok).toBe(false);
    expect(verify(body, SECRET, `${right.slice(0, 63)}g`, { scheme: 'hmac-sha256-hex' })).toMatchObject({ ok: false, kind: 'malformed' });
  });

  it('a signature of another scheme is refused when one is pinned, and the reason names the scheme that matched', () => {
    const r = verify(body, SECRET, stamped(T), { scheme: 'hmac-sha256-hex', now: NOW });
    expect(r).toMatchObject({ ok: false, kind: 'other-scheme', scheme: 'timestamped-sha256' });
    expect(r.ok ? '' : r.reason).toBe('signed with timestamped-sha256, but only hmac-sha256-hex is accepted');
    expect(verify(body, SECRET, hex('sha256'), { scheme: 'timestamped-sha256', now: NOW })).toMatchObject({ ok: false, kind: 'other-scheme' });
    expect(verify(body, SECRET, b64('sha256'), { scheme: 'hmac-sha256-hex' })).toMatchObject({ ok: false, scheme: 'hmac-sha256-base64' });
    expect(verify(body, SECRET, hex('sha512'), { scheme: 'hmac-sha256-hex' }).ok).toBe(false);
    // Pinned and forged: a plain refusal.
    expect(verify(body, 'whsec_other', hex('sha256'), { scheme: 'hmac-sha256-hex' })).toMatchObject({ ok: false, kind: 'mismatch' });
  });

  it('never puts a secret in a reason', () => {
    const secret = 'whsec_very_secret_value';
    for (const header of [undefined, 'junk', hex('sha256'), stamped(T - 9999, secret)]) {
      const r = verify(body, secret, header, { now: NOW, scheme: 'hmac-sha256-hex' });
      expect(JSON.stringify(r)).not.toContain(secret);
      expect(JSON.stringify(verify(body, secret, header, { now: NOW }))).not.toContain(secret);
    }
  });
});

describe('several secrets, and detect', () => {
  it('verify says which secret matched', () => {
    expect(verify(body, ['whsec_a', SECRET, 'whsec_b'], hex('sha256'))).toEqual({ ok: true, scheme: 'hmac-sha256-hex', secretIndex: 1 });
    expect(verify(body, ['whsec_a', 'whsec_b'], hex('sha256')).ok).toBe(false);
    // An empty secret is skipped, never used as a key, and does not shift the index.
    expect(verify(body, ['', SECRET], hex('sha256'))).toMatchObject({ ok: true, secretIndex: 1 });
    expect(verify(body, [''], hex('sha256', body, ''))).toMatchObject({ ok: false, kind: 'no-secret' });
  });

  it('detect returns every (scheme, secret) that verifies, labelled, most specific scheme first', () => {
    const secrets = [
      { label: '--secret', secret: 'whsec_wrong' },
      { label: 'OFFRAMP_WEBHOOK_SECRET', secret: SECRET },
      { label: 'profile staging', secret: SECRET },
    ];
    expect(detect(body, hex('sha256'), secrets)).toEqual([
      { scheme: 'hmac-sha256-hex', secretLabel: 'OFFRAMP_WEBHOOK_SECRET' },
      { scheme: 'hmac-sha256-hex', secretLabel: 'profile staging' },
    ]);
    // `sha256=<hex>` is both prefixed-sha256-hex and (with its optional prefix) hmac-sha256-hex.
    expect(detect(body, `sha256=${hex('sha256')}`, secrets.slice(0, 2))).toEqual([
      { scheme: 'prefixed-sha256-hex', secretLabel: 'OFFRAMP_WEBHOOK_SECRET' },
      { scheme: 'hmac-sha256-hex', secretLabel: 'OFFRAMP_WEBHOOK_SECRET' },
    ]);
    expect(detect(body, b64('sha512'), secrets.slice(0, 2))).toEqual([{ scheme: 'hmac-sha512-base64', secretLabel: 'OFFRAMP_WEBHOOK_SECRET' }]);
    expect(detect(body, stamped(T, 'whsec_wrong'), secrets, { now: NOW })).toEqual([{ scheme: 'timestamped-sha256', secretLabel: '--secret' }]);
    expect(detect(body, hex('sha256'), secrets, { scheme: 'hmac-sha512-hex' })).toEqual([]);
    expect(detect(`${body}\n`, hex('sha256'), secrets)).toEqual([]);
    expect(detect(body, undefined, secrets)).toEqual([]);
  });

  it('detect judges a timestamp by `now`, or ignores it with an infinite tolerance', () => {
    const secrets = [{ label: 'x', secret: SECRET }];
    const old = stamped(T - 86_400);
    expect(detect(body, old, secrets, { now: NOW })).toEqual([]);
    expect(detect(body, old, secrets, { now: new Date((T - 86_400) * 1000) })).toHaveLength(1);
    expect(detect(body, old, secrets, { now: NOW, toleranceSec: Infinity })).toHaveLength(1);
  });
});

describe('schemeSetting', () => {
  it('takes a scheme name, or any / nothing for every scheme; anything else names the catalogue', () => {
    expect(schemeSetting('timestamped-sha256', '--scheme')).toBe('timestamped-sha256');
    expect(schemeSetting('any', '--scheme')).toBeUndefined();
    expect(schemeSetting(undefined, '--scheme')).toBeUndefined();
    expect(() => schemeSetting('hmac-md5', '--scheme')).toThrow(/--scheme: unknown signature scheme "hmac-md5"/);
    try {
      schemeSetting('hmac-md5', '--scheme');
    } catch (err) {
      expect((err as { hint?: string }).hint).toContain(SCHEMES.join(', '));
    }
  });
});
