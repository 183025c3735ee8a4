// Where a running emulator delivers webhooks (docs/emulator.md, "Control plane"), for `emulator
// webhooks set-url | clear` and for `webhooks listen`, which puts back what it found when it stops.
import type { Context } from '../context.js';
import { SchemaError } from '../errors.js';
import { callControl, type ControlTarget } from './control-client.js';
import type { Registration } from '../emulator-defaults.js';

/** The control plane's answer: the secret is a credential, never printed. `registered_by` is absent from an older emulator. */
export type WebhookEndpoint = { url: string | null; secret: string; signature_scheme: string; previous_url?: string | null; registered_by?: Registration | null };

export async function readEndpoint(ctx: Context, target: ControlTarget, timeoutMs?: number): Promise<WebhookEndpoint> {
  const answer = await callControl(ctx, target, { method: 'GET', path: '/webhooks', ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
  const endpoint = endpointOf(answer.data, target);
  ctx.io.addSecret(endpoint.secret);
  return endpoint;
}

/** With `expectUrl`, only while the emulator still delivers there (else CONFLICT, 409). */
export async function writeEndpoint(
  ctx: Context,
  target: ControlTarget,
  set: { url: string | null; secret?: string; expectUrl?: string | null; registeredBy?: Registration | null },
): Promise<WebhookEndpoint> {
  ctx.io.addSecret(set.secret);
  const json = {
    url: set.url,
    ...(set.secret !== undefined ? { secret: set.secret } : {}),
    ...(set.expectUrl !== undefined ? { expect_url: set.expectUrl } : {}),
    ...(set.registeredBy ? { registered_by: set.registeredBy } : {}),
  };
  const answer = await callControl(ctx, target, { method: 'PUT', path: '/webhooks', json });
  return endpointOf(answer.data, target);
}

/** A server that answers 200 with anything else is not an emulator: BAD_RESPONSE, not a crash on a missing field. */
function endpointOf(data: unknown, target: ControlTarget): WebhookEndpoint {
  const e = data as { url?: unknown; secret?: unknown } | null | undefined;
  if (typeof e !== 'object' || e === null || typeof e.secret !== 'string' || (e.url !== null && typeof e.url !== 'string')) {
    throw new SchemaError(`${target.origin} answered its webhook endpoint in a shape no offramp emulator sends`).withHint(`${target.origin} does not look like an offramp emulator`);
  }
  return e as WebhookEndpoint;
}

/** What `--json` shows of an endpoint: everything but the secret. */
export function endpointJson(e: WebhookEndpoint): object {
  return { url: e.url, signature_scheme: e.signature_scheme, ...(e.previous_url !== undefined ? { previous_url: e.previous_url } : {}) };
}
