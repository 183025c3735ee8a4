// Webhook chaos (`--webhook-chaos duplicate=R,reorder=R,delay=MIN-MAXms`): the spec says
// delivery is at-least-once and unordered, and that consumers must be idempotent and
// order-tolerant; this makes the emulator deliver that way on purpose so a partner can
// prove it. Parsing and checking live here; webhooks.ts applies it.
import type { WebhookChaos } from './types.js';
import { parseDurationRange } from '../lib/input/duration.js';

/** The longest chaos delay: beyond it a test waits for nothing it learns from. */
export const MAX_CHAOS_DELAY_MS = 60_000;

/** `duplicate=0.2,reorder=0.3,delay=10-500ms` → settings, or a message saying what is wrong. */
export function parseChaos(text: string): WebhookChaos | string {
  const chaos: WebhookChaos = {};
  const parts = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length === 0) return 'give at least one of duplicate=R, reorder=R, delay=MIN-MAXms';
  for (const part of parts) {
    const [name, value, extra] = part.split('=');
    if (value === undefined || extra !== undefined) return `"${part}" must be NAME=VALUE (duplicate=0.2, reorder=0.3, delay=10-500ms)`;
    if (name === 'duplicate' || name === 'reorder') {
      if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(value)) return `${name}: "${value}" is not a probability from 0 to 1 (e.g. 0.2)`;
      chaos[name] = Number(value);
    } else if (name === 'delay') {
      const range = parseDurationRange(value, 'ms');
      if (typeof range === 'string') return `delay: ${range}`;
      if (range.max > MAX_CHAOS_DELAY_MS) return `delay: at most ${MAX_CHAOS_DELAY_MS} ms`;
      chaos.delayMs = [range.min, range.max];
    } else {
      return `unknown chaos "${name}": use duplicate, reorder and delay`;
    }
  }
  return chaos;
}

export function chaosProblem(chaos: WebhookChaos): string | null {
  for (const name of ['duplicate', 'reorder'] as const) {
    const r = chaos[name];
    if (r !== undefined && !(r >= 0 && r <= 1)) return `webhookChaos.${name} must be between 0 and 1`;
  }
  const d = chaos.delayMs;
  if (d !== undefined && !(d.length === 2 && Number.isInteger(d[0]) && Number.isInteger(d[1]) && d[0] >= 0 && d[0] <= d[1] && d[1] <= MAX_CHAOS_DELAY_MS)) {
    return `webhookChaos.delayMs must be [min, max] whole milliseconds, 0 <= min <= max <= ${MAX_CHAOS_DELAY_MS}`;
  }
  return null;
}

export function describeChaos(chaos: WebhookChaos): string {
  const parts: string[] = [];
  if (chaos.duplicate) parts.push(`duplicate ${chaos.duplicate}`);
  if (chaos.reorder) parts.push(`reorder ${chaos.reorder}`);
  if (chaos.delayMs) parts.push(`delay ${chaos.delayMs[0]}-${chaos.delayMs[1]} ms`);
  return parts.join(', ') || 'none';
}
