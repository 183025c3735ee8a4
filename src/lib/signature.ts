// Webhook signature scheme. partner-api.md leaves the algorithm "not shown"; the CLI
// contract fixes it: lowercase hex HMAC-SHA256 of the raw request body, keyed with the
// webhook secret, carried in X-SVC-Webhook-Signature.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-svc-webhook-signature';

export function sign(rawBody: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** Constant-time check of a received signature against the body; never throws. */
export function verify(rawBody: string | Buffer, secret: string, signature: string | undefined): boolean {
  if (!signature) return false;
  const expected = Buffer.from(sign(rawBody, secret), 'hex');
  const given = signature.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(given)) return false;
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}
