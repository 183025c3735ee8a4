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
  if (info.outcome === 'invalid' || info.outcome === 'store_failed' || info.outcome === 'too_large') {
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

/** `  → EVENT_ID  STATUS from URL in N ms`, with what happens next when the app did not take it. */
export function forwardLine(result: ForwardResult, style: LineStyle): string {
  const c = style.color;
  const tries = result.attempt > 1 ? ` (try ${result.attempt})` : '';
  const next = result.retryInMs !== undefined ? `; still owed, next try in ${seconds(result.retryInMs)}` : '';
  const detail = result.detail ? `: ${result.detail}` : '';
  const copy = result.duplicate ? ' (duplicate)' : '';
  if (result.dropped) return `  → ${result.id}  ${c.red('not forwarded')}${detail}${copy}`;
  if (result.status === undefined) {
    return `  → ${result.id}  ${c.red('no answer')} from ${result.url}${tries}${detail}${next}${copy}`;
  }
  const status = result.ok ? c.green(String(result.status)) : c.red(String(result.status));
  return `  → ${result.id}  ${status} from ${result.url} in ${result.ms} ms${tries}${result.ok ? '' : detail}${next}${copy}`;
}

export function forwardJson(result: ForwardResult): Record<string, unknown> {
  return {
    id: result.id,
    type: result.type ?? null,
    url: result.url,
    status: result.status ?? null,
    ok: result.ok,
    ms: result.ms,
    attempt: result.attempt,
    duplicate: result.duplicate,
    ...(result.retryInMs !== undefined ? { retry_in_ms: result.retryInMs } : {}),
    ...(result.detail ? { detail: result.detail } : {}),
  };
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/**
 * The exit tally, one line: `received N, stored N, duplicates N, rejected N, forwarded N,
 * still owed N`, then what else happened, when it did.
 */
export function tallyLine(stats: ReceiverStats): string {
  const main = `received ${stats.received}, stored ${stats.stored}, duplicates ${stats.duplicates}, rejected ${stats.rejected}, forwarded ${stats.forwarded}, still owed ${stats.owed}`;
  const more: string[] = [];
  const why = [
    stats.badSignature ? `${stats.badSignature} bad signature` : '',
    stats.notEvent ? `${stats.notEvent} not an event` : '',
    stats.tooLarge ? `${stats.tooLarge} too large` : '',
  ].filter(Boolean);
  if (why.length) more.push(`rejected: ${why.join(', ')}`);
  if (stats.storeFailures) more.push(`${stats.storeFailures} not stored (answered 503)`);
  if (stats.outOfOrder) more.push(`${stats.outOfOrder} out of order`);
  if (stats.filtered) more.push(`${stats.filtered} not shown (--events)`);
  if (stats.forwardFailures) more.push(`${stats.forwardFailures} forward attempt${stats.forwardFailures === 1 ? '' : 's'} not taken`);
  return more.length ? `${main}; ${more.join('; ')}` : main;
}
