// One line per webhook delivery, as `webhooks listen` (and the demo) print it, and the
// same facts as a JSON object for `-o ndjson`. The lines are terminal-safe: what the
// delivery claims (type, ids, status, error) is sanitised, only our colour passes as is.
import type { ChalkInstance } from 'chalk';
import { layout } from '../output/render.js';
import { paint, terminalLine, terminalSafe, type Text } from '../output/sanitize.js';
import { pad, shorten, textWidth } from '../output/width.js';
import { humanDuration } from '../output/time.js';
import { SCHEMES } from './signature.js';
import { EVENT_TYPES, TRANSACTION_STATUSES } from '../vocabulary.js';
import type { ForwardResult } from './forwarder.js';
import type { DeliveryInfo, ReceiverStats } from './receiver.js';

/** `fit`: how lines give way on a terminal: its width, the space between fields, the ids' widths, whether the scheme shows. */
export type LineStyle = { color: ChalkInstance; friendlyTime: boolean; fit?: { width: number; gap: number; id: number; tx: number; scheme: boolean } };

const ID_WIDTH = 36;
const longest = (names: readonly string[]) => Math.max(...names.map(textWidth));
const TYPE_WIDTH = longest(EVENT_TYPES);

/**
 * The style of the lines; on a terminal `width` wide they fit it, giving way as tables do
 * (render.ts, layout): less space between fields, then the ids cut to their head, then the
 * scheme left out (`-o ndjson` always has it). Decided once, for the widest event type and
 * status of the spec, so that every line is cut alike and the fields line up.
 */
export function lineStyle(color: ChalkInstance, friendlyTime: boolean, width: number | undefined): LineStyle {
  if (width === undefined) return { color, friendlyTime };
  const natural = [friendlyTime ? 8 : 24, 3, TYPE_WIDTH, ID_WIDTH, 'tx '.length + ID_WIDTH, longest(TRANSACTION_STATUSES), longest(SCHEMES)];
  const plan = layout(natural, undefined, [undefined, undefined, undefined, { min: 9, giveWay: 'first' }, { min: 12, giveWay: 'first' }, undefined, { drop: 1 }], width);
  return { color, friendlyTime, fit: { width, gap: plan.gap, id: plan.widths[3]!, tx: plan.widths[4]! - 'tx '.length, scheme: plan.keep[6]! } };
}

/** A field the delivery claims, terminal-safe, cut to `width` when the line must fit. */
function field(value: string | undefined, width?: number): string {
  const safe = terminalSafe(value ?? '?');
  return width === undefined ? safe : shorten(safe, width);
}

/** `time  HTTP  type  event id  tx id  status  scheme  [duplicate] [out of order ...]` */
export function deliveryLine(info: DeliveryInfo, style: LineStyle): string {
  const c = style.color;
  const fit = style.fit;
  const gap = ' '.repeat(fit?.gap ?? 2);
  const time = style.friendlyTime ? info.receivedAt.toTimeString().slice(0, 8) : info.receivedAt.toISOString();
  const code = paint(info.httpStatus, info.httpStatus < 300 ? c.green : c.red);
  const id = field(info.id, fit?.id);
  if (info.reception === 'rejected') {
    return terminalLine([time, gap, code, gap, paint('bad signature, not stored', c.red), info.id ? `${gap}(claims id ${id})` : '', gap, paint(info.error ?? '', c.dim)]).trimEnd();
  }
  if (info.reception === 'invalid' || info.reception === 'store_failed' || info.reception === 'too_large') {
    return terminalLine([time, gap, code, gap, paint(info.error ?? info.reception, c.red), info.id ? `${gap}${id}` : '']);
  }
  const parts: Text[] = [time, code, pad(field(info.type), TYPE_WIDTH), id, `tx ${field(info.transactionId ?? '—', fit?.tx)}`, info.status ?? '—'];
  // The scheme that verified: with several accepted, which one the service uses is worth seeing.
  if (fit?.scheme !== false) parts.push(paint(info.scheme ?? '—', c.dim));
  if (info.duplicate) parts.push(paint('duplicate', c.yellow));
  if (info.outOfOrder) parts.push(paint(`out of order (reports ${info.eventStatus})`, c.yellow));
  return terminalLine(parts.flatMap((part, i) => (i === 0 ? [part] : [gap, part])));
}

export function deliveryJson(info: DeliveryInfo): Record<string, unknown> {
  return {
    time: info.receivedAt.toISOString(),
    // The name -o ndjson has always printed.
    outcome: info.reception,
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

/**
 * `  → EVENT_ID  STATUS from URL in N ms`, with what happens next when the app did not take it.
 * On a terminal the line never wraps: the URL goes first (listen printed it at start, and it
 * is the same on every line), then the app's answer is cut, then the line's end.
 */
export function forwardLine(result: ForwardResult, style: LineStyle): string {
  const c = style.color;
  const id = field(result.id, style.fit?.id);
  const tries = result.attempt > 1 && !result.dropped ? ` (try ${result.attempt})` : '';
  const next = result.retryInMs !== undefined && !result.dropped ? `; still owed, next try in ${humanDuration(result.retryInMs)}` : '';
  const copy = result.duplicate ? ' (duplicate)' : '';
  const from = result.dropped ? '' : ` from ${result.url}`;
  const [mark, timing, detail] = result.dropped
    ? [paint('not forwarded', c.red), '', result.detail]
    : result.status === undefined
      ? [paint('no answer', c.red), '', result.detail]
      : [paint(result.status, result.ok ? c.green : c.red), ` in ${result.ms} ms`, result.ok ? undefined : result.detail];
  const line = (url: string, answer: string | undefined) => terminalLine([`  → ${id}  `, mark, `${url}${timing}${tries}${answer ? `: ${answer}` : ''}${next}${copy}`]);
  const whole = line(from, detail);
  const width = style.fit?.width;
  if (width === undefined || textWidth(whole) <= width) return whole;
  const bare = line('', undefined);
  const room = width - textWidth(bare) - ': '.length;
  const cut = line('', detail && room > 1 ? shorten(terminalSafe(detail), room) : undefined);
  return textWidth(cut) <= width ? cut : shorten(cut, width);
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
