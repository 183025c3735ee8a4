// One line per webhook delivery, as `webhooks listen` (and the demo) print it, and the
// same facts as a JSON object for `-o ndjson`.
import type { ChalkInstance } from 'chalk';
import type { ForwardResult } from './forwarder.js';
import type { DeliveryInfo, ReceiverStats } from './receiver.js';

export type LineStyle = { color: ChalkInstance; friendlyTime: boolean };

/** `time  HTTP  type  event id  tx id  status  scheme  [duplicate] [out of order ...]` */
export function deliveryLine(info: DeliveryInfo, style: LineStyle): string {
  const c = style.color;
  const time = style.friendlyTime ? info.receivedAt.toTimeString().slice(0, 8) : info.receivedAt.toISOString();
  const code = info.httpStatus < 300 ? c.green(String(info.httpStatus)) : c.red(String(info.httpStatus));
  if (info.outcome === 'rejected') {
    return `${time}  ${code}  ${c.red('bad signature, not stored')}${info.id ? `  (claims id ${info.id})` : ''}  ${c.dim(info.error ?? '')}`.trimEnd();
  }
  if (info.outcome === 'invalid' || info.outcome === 'store_failed') {
    return `${time}  ${code}  ${c.red(info.error ?? info.outcome)}${info.id ? `  ${info.id}` : ''}`;
  }
  const marks: string[] = [];
  if (info.duplicate) marks.push(c.yellow('duplicate'));
  if (info.outOfOrder) marks.push(c.yellow(`out of order (reports ${info.eventStatus})`));
  // The scheme that verified: with several accepted, which one the service uses is worth seeing.
  const scheme = c.dim(info.scheme ?? '—');
  return [time, code, (info.type ?? '?').padEnd(21), info.id ?? '?', `tx ${info.transactionId ?? '—'}`, info.status ?? '—', scheme, ...marks].join('  ');
}

export function deliveryJson(info: DeliveryInfo): Record<string, unknown> {
  return {
    time: info.receivedAt.toISOString(),
    outcome: info.outcome,
    http_status: info.httpStatus,
    verified: info.verified,
    scheme: info.scheme ?? null,
    id: info.id ?? null,
    type: info.type ?? null,
    transaction_id: info.transactionId ?? null,
    status: info.status ?? null,
    event_status: info.eventStatus ?? null,
    duplicate: info.duplicate,
    out_of_order: info.outOfOrder,
    ...(info.error ? { error: info.error } : {}),
  };
}

export function forwardLine(result: ForwardResult, style: LineStyle): string {
  const c = style.color;
  if (result.status === undefined) return `  ${c.red('→ not forwarded')}: ${result.detail ?? 'no answer'}`;
  const status = result.ok ? c.green(String(result.status)) : c.red(String(result.status));
  return `  → ${result.url} answered ${status} in ${result.ms} ms${result.detail ? `: ${result.detail}` : ''}`;
}

export function summaryLine(stats: ReceiverStats): string {
  const parts = [
    `${stats.received} deliver${stats.received === 1 ? 'y' : 'ies'}`,
    `${stats.accepted} accepted`,
    `${stats.duplicates} duplicate${stats.duplicates === 1 ? '' : 's'}`,
    `${stats.rejected} bad signature`,
  ];
  if (stats.invalid) parts.push(`${stats.invalid} not an event`);
  if (stats.storeFailures) parts.push(`${stats.storeFailures} not stored (store failed)`);
  parts.push(`${stats.outOfOrder} out of order`);
  if (stats.forwarded || stats.forwardFailures) parts.push(`${stats.forwarded} forwarded, ${stats.forwardFailures} forward failures`);
  return parts.join(', ');
}
