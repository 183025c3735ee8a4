// The state's records, one JSON object per line (docs/emulator.md, "State file", gives the
// format): a snapshot and a journal segment of `--state FILE` (journal.ts), and what
// `GET`/`PUT /__emulator/state` carry. A record is whole and a later line for the same id
// replaces an earlier, so a snapshot caught while requests went on, followed by its journal,
// reads as the state it ended at. Nothing is installed until everything has been read and
// checked. Two records are written short when what comes just before says the rest (smaller
// and quicker to encode, BENCHMARKS.md "Emulator"): an event whose snapshot is its
// transaction as just written (`"body":{"snapshot_of":"tx"}`), and a create's stored answer,
// its transaction's summary (`"answer_of":{"tx":ID,"status":S}`); the reader rebuilds the bytes.
import * as z from 'zod/mini';
import { DateTime, RevenueRow, Uuid } from '../lib/schemas.js';
import type { RevenueRow as RevenueRowType } from '../lib/schemas.js';
import { Decimal } from '../lib/money.js';
import { TRANSACTION_STATUSES } from '../lib/vocabulary.js';
import { VERSION } from '../version.js';
import type { IdempotencyEntry } from './idempotency.js';
import { SeededRows, SeededState } from './revenue-seed.js';
import type { DecodedState, EventRecord, QuoteRecord, TxRecord } from './partners.js';
import { STATE_FORMAT } from './types.js';
import { EventFields, PartnerState, QuoteFields, TxFields } from './partners.js';
import { snapshot, summary } from './transactions.js';

/** 2: snapshot and journal (1 was the whole state rewritten now and then). */
export const STATE_FORMAT_VERSION = 2;

/** A document that cannot be loaded; the message is one line saying why. */
export class StateFormatError extends Error {
  override name = 'StateFormatError';
}

// ---------------------------------------------------------------- writing

const q = JSON.stringify;

export function headerLine(now: string, extra: { journal?: number; segment?: number }): string {
  return q({ k: 'header', format: STATE_FORMAT, format_version: STATE_FORMAT_VERSION, offramp_version: VERSION, written_at: now, ...extra });
}

/** `fresh`: the partner starts over here (a reset of one partner), dropping what came before. */
export function partnerLine(p: number, partner: PartnerState, fresh = false): string {
  return `{"k":"partner","p":${p},"key_sha256":"${partner.keyHash}","label":${q(partner.label)}${fresh ? ',"fresh":true' : ''}}`;
}

export const quoteLine = (p: number, quote: QuoteRecord) => `{"k":"quote","p":${p},"v":${q({ ...quote, amount: quote.amount.toString() })}}`;
/** Every field of a TxRecord is plain data, so the record serialises as it is. */
export const txLine = (p: number, tx: TxRecord) => `{"k":"tx","p":${p},"v":${q(tx)}}`;
export const rowLine = (p: number, row: RevenueRowType) => `{"k":"row","p":${p},"v":${q(row)}}`;
export const clockLine = (offsetMs: number) => `{"k":"clock","offset_ms":${offsetMs}}`;

/**
 * An event's line. `tx` is given only when its transaction's line comes just before, in the
 * same write: if the event's snapshot is that transaction as it stands, the body is not repeated.
 */
export function eventLine(p: number, evt: EventRecord, tx: TxRecord | undefined): string {
  // The delivery's own fields stay out: what is left is EventFields.
  const { payload: _payload, body: _body, inFlight: _inFlight, replayQueued: _replayQueued, cancelScheduled: _cancel, owner: _owner, ...fields } = evt;
  const v = q(fields);
  if (tx && evt.payload !== null && sameFields(evt.payload as Record<string, unknown>, snapshot(tx))) {
    return `{"k":"event","p":${p},"v":${v},"body":{"snapshot_of":"tx"}}`;
  }
  // The delivery body is JSON: it goes in as it is, so it reads back as the same bytes.
  const body = evt.body ?? (evt.payload === null ? 'null' : q({ id: evt.event_id, type: evt.event_type, data: evt.payload }));
  return `{"k":"event","p":${p},"v":${v},"body":${body}}`;
}

/** Two snapshots with the same values under the same keys, in the same order (so the same JSON). */
function sameFields(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(b);
  const other = Object.keys(a);
  if (keys.length !== other.length) return false;
  for (let i = 0; i < keys.length; i++) if (keys[i] !== other[i] || a[keys[i]!] !== b[keys[i]!]) return false;
  return true;
}

export function idemLine(p: number, id: string, { request, status, json, headers, storedMs, answerOf }: IdempotencyEntry): string {
  const v = answerOf ? { request, status, storedMs, answer_of: answerOf } : { request, status, json, headers, storedMs };
  return `{"k":"idem","p":${p},"id":${q(id)},"v":${q(v)}}`;
}

const seedValues = new WeakMap<SeededRows, string>();

/**
 * A partner's lines, a few at a time: a caller may let other work run between two groups
 * (journal.ts writes a snapshot so). A transaction's events come right after it, in the
 * same group, so they can be written short.
 */
function* partnerGroups(p: number, partner: PartnerState): Generator<string[]> {
  yield [partnerLine(p, partner)];
  for (const quote of partner.quotes.values()) yield [quoteLine(p, quote)];
  // Stored answers before transactions: read while requests go on, a create's answer is
  // never written without its transaction (a create stores both in one turn).
  for (const [id, entry] of partner.idempotency.all()) yield [idemLine(p, id, entry)];
  const eventsOf = new Map<string, EventRecord[]>();
  for (const evt of partner.eventList) {
    const list = eventsOf.get(evt.aggregate_id);
    if (list) list.push(evt);
    else eventsOf.set(evt.aggregate_id, [evt]);
  }
  for (const tx of partner.txList) {
    const group = [txLine(p, tx)];
    for (const evt of eventsOf.get(tx.id) ?? []) group.push(eventLine(p, evt, tx));
    eventsOf.delete(tx.id);
    yield group;
  }
  for (const events of eventsOf.values()) yield events.map((evt) => eventLine(p, evt, undefined));
  for (const row of partner.ledger.liveRows()) yield [rowLine(p, row)];
  const seeded = partner.ledger.seeded;
  if (!seeded) return;
  // Megabytes in one line, and never changed: encoded once, not at every fold.
  if (!seedValues.has(seeded)) seedValues.set(seeded, q(seeded.toState()));
  yield [`{"k":"seed","p":${p},"v":${seedValues.get(seeded)}}`];
}

/** Every record of these partners: the body of a document, and what a journal writes when the whole state is replaced. */
export function* stateLines(partners: readonly PartnerState[], clockOffsetMs: () => number): Generator<string[]> {
  for (let p = 0; p < partners.length; p++) yield* partnerGroups(p, partners[p]!);
  yield [clockLine(clockOffsetMs())];
}

/** A partner's lines after a reset of it alone: it starts over. */
export function freshPartnerLines(p: number, partner: PartnerState): string[] {
  const lines = [...partnerGroups(p, partner)].flat();
  lines[0] = partnerLine(p, partner, true);
  return lines;
}

/**
 * Characters per chunk: small enough for the allocator to reuse memory it already has
 * (larger chunks, each on fresh pages, measured several times slower: BENCHMARKS.md, "Emulator").
 */
const CHUNK_CHARS = 64 * 1024;

/** A whole document in chunks of text; read without pause, it is one moment's state. */
export function* documentChunks(partners: readonly PartnerState[], clockOffsetMs: () => number, now: string, journal?: number): Generator<string> {
  let text = `${headerLine(now, journal === undefined ? {} : { journal })}\n`;
  let lines = 1;
  for (const group of stateLines(partners, clockOffsetMs)) {
    for (const line of group) text += `${line}\n`;
    lines += group.length;
    if (text.length < CHUNK_CHARS) continue;
    yield text;
    text = '';
  }
  yield `${text}{"k":"end","lines":${lines}}\n`;
}


// ---------------------------------------------------------------- reading


const Int = z.int();
const NonNegInt = z.int().check(z.nonnegative());

const Header = z.object({ k: z.literal('header'), format: z.string(), format_version: z.number(), offramp_version: z.string(), journal: z.optional(NonNegInt), segment: z.optional(NonNegInt) });

const EventBody = z.union([z.object({ snapshot_of: z.literal('tx') }), z.object({ id: Uuid, type: z.string(), data: z.nullable(z.record(z.string(), z.unknown())) })]);

const Idem = z.object({
  request: z.object({ text: z.string(), structural: z.boolean() }),
  status: Int,
  json: z.optional(z.string()),
  answer_of: z.optional(z.object({ tx: Uuid, status: z.enum(TRANSACTION_STATUSES) })),
  headers: z.optional(z.record(z.string(), z.string())),
  storedMs: z.number(),
});

const p = NonNegInt;
const Line = z.discriminatedUnion('k', [
  z.object({ k: z.literal('header') }),
  z.object({ k: z.literal('partner'), p, key_sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)), label: z.string(), fresh: z.optional(z.literal(true)) }),
  z.object({ k: z.literal('tx'), p, v: TxFields }),
  z.object({ k: z.literal('event'), p, v: EventFields, body: z.nullable(EventBody) }),
  z.object({ k: z.literal('quote'), p, v: QuoteFields }),
  z.object({ k: z.literal('idem'), p, id: z.string(), v: Idem }),
  z.object({ k: z.literal('row'), p, v: RevenueRow }),
  z.object({ k: z.literal('seed'), p, v: SeededState }),
  z.object({ k: z.literal('clock'), offset_ms: NonNegInt }),
  // The whole state is replaced (a reset or an import): what came before is dropped.
  z.object({ k: z.literal('wipe') }),
]);

/** A partner's records while a document is read: transactions and quotes go straight in (by id: a later line wins), the rest once all is read. */
type Draft = {
  partner: PartnerState;
  /** Each event with its snapshot (the delivery body's `data`). */
  events: Map<string, { v: z.infer<typeof EventFields>; payload: object | null }>;
  idem: Map<string, z.infer<typeof Idem>>;
  rows: Map<string, RevenueRowType>;
  seed?: SeededState;
  /** The seed's value as the file wrote it, when it is that: the next fold writes it again as read. */
  seedText?: string;
};

export function jsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The first line of a snapshot or journal segment, checked: another format or release is refused, saying what to do. */
export function readHeader(bytes: Buffer, decoder: StateDecoder): z.infer<typeof Header> {
  const firstEnd = bytes.indexOf(0x0a);
  const header = Header.safeParse(jsonOr(bytes.toString('utf8', 0, firstEnd < 0 ? Math.min(bytes.length, 4096) : firstEnd)));
  if (!header.success) return decoder.fail('is not an offramp emulator state (its first line is not the state header)');
  const { format, format_version, offramp_version } = header.data;
  if (format !== STATE_FORMAT) decoder.fail(`is not an offramp emulator state (format "${format.slice(0, 40)}")`);
  if (format_version !== STATE_FORMAT_VERSION || offramp_version !== VERSION) {
    const theirs = offramp_version.slice(0, 40);
    decoder.fail(
      `was written by offramp ${theirs} (state format ${format_version}); this is offramp ${VERSION} (state format ${STATE_FORMAT_VERSION}), which reads only its own: ` +
        `export it with offramp ${theirs} (offramp emulator state export) and rebuild what you need, or move it aside to start afresh`,
    );
  }
  return header.data;
}

/**
 * Reads records, from one document or from a snapshot and the journal after it, into
 * drafts; `finish` checks that they hold together and builds the partners.
 */
export class StateDecoder {
  private drafts = new Map<number, Draft>();
  private clockOffsetMs = 0;
  /** Names the file being read in messages ("state file X", "journal X"). */
  what = 'the state';

  fail(why: string): never {
    throw new StateFormatError(`${this.what} ${why}`);
  }

  /** One record line; `at` is its line number in the file being read. */
  apply(text: string, at: number): void {
    const record = jsonOr(text);
    if (record === undefined) return this.fail(`is damaged: line ${at} is not JSON`);
    const parsed = Line.safeParse(record);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return this.fail(`is damaged: line ${at} ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'is malformed'}`);
    }
    const r = parsed.data;
    if (r.k === 'header') return;
    if (r.k === 'clock') {
      this.clockOffsetMs = r.offset_ms;
      return;
    }
    if (r.k === 'wipe') {
      this.drafts.clear();
      this.clockOffsetMs = 0;
      return;
    }
    if (r.k === 'partner') {
      const existing = r.fresh ? undefined : this.drafts.get(r.p);
      if (existing && existing.partner.keyHash !== r.key_sha256) this.fail(`is damaged: line ${at} gives partner ${r.p} another key`);
      if (!existing) this.drafts.set(r.p, { partner: new PartnerState(r.label, r.key_sha256), events: new Map(), idem: new Map(), rows: new Map() });
      return;
    }
    const draft = this.drafts.get(r.p) ?? this.fail(`is damaged: line ${at} names partner ${r.p} before it is declared`);
    switch (r.k) {
      case 'tx':
        draft.partner.transactions.set(r.v.id, r.v);
        break;
      case 'event': {
        let payload: object | null = null;
        if (r.body && 'snapshot_of' in r.body) {
          const tx = draft.partner.transactions.get(r.v.aggregate_id) ?? this.fail(`is damaged: line ${at} refers to a transaction written after it, or not at all`);
          payload = snapshot(tx);
        } else if (r.body) {
          if (r.body.id !== r.v.event_id || r.body.type !== r.v.event_type) this.fail(`is damaged: line ${at} carries another event's body`);
          payload = r.body.data;
        }
        draft.events.set(r.v.event_id, { v: r.v, payload });
        break;
      }
      case 'quote':
        draft.partner.quotes.set(r.v.quote_id, { ...r.v, amount: new Decimal(r.v.amount) });
        break;
      case 'idem':
        draft.idem.set(r.id, r.v);
        break;
      case 'row':
        draft.rows.set(r.v.transaction_id, r.v);
        break;
      case 'seed': {
        draft.seed = r.v;
        // Megabytes encoded in one piece would stall a later fold: the text read is that encoding.
        const prefix = `{"k":"seed","p":${r.p},"v":`;
        draft.seedText = text.startsWith(prefix) && text.endsWith('}') ? text.slice(prefix.length, -1) : undefined;
        break;
      }
    }
  }

  finish(): DecodedState {
    const fail = (why: string) => this.fail(why);
    const partners = [...this.drafts.values()].map((draft) => build(draft, fail));
    if (new Set(partners.map((p) => p.keyHash)).size !== partners.length) fail('is damaged: two partners have the same key');
    return { partners, clockOffsetMs: this.clockOffsetMs };
  }
}

/**
 * A whole document (a snapshot, an export): its header, its records, and its end line
 * counting them. Answers the header with the records read into `decoder`.
 */
export function readDocument(bytes: Buffer, decoder: StateDecoder): z.infer<typeof Header> {
  const header = readHeader(bytes, decoder);
  const lines = bytes.toString('utf8').split('\n');
  // A whole document ends with its end line and a newline, so the split leaves '' last.
  const endLine = jsonOr(lines.at(-2) ?? '') as { k?: unknown; lines?: unknown } | undefined;
  if (lines.at(-1) !== '' || endLine?.k !== 'end') decoder.fail('is incomplete: it does not end with its end line');
  if (endLine!.lines !== lines.length - 2) decoder.fail(`is damaged: it holds ${lines.length - 2} lines where its end line counts ${String(endLine!.lines)}`);
  for (let i = 1; i < lines.length - 2; i++) decoder.apply(lines[i]!, i + 1);
  return header;
}

export function decodeDocument(bytes: Buffer): DecodedState {
  const decoder = new StateDecoder();
  readDocument(bytes, decoder);
  return decoder.finish();
}

/** A partner's records as the emulator's structures; refuses what cannot hold together. */
function build({ partner, ...draft }: Draft, fail: (why: string) => never): PartnerState {
  // Creation order is the order of pages; `seq` is renumbered from it so that it is the
  // index plus one again, which the pager relies on.
  const txs = [...partner.transactions.values()].sort((a, b) => a.seq - b.seq || a.createdMs - b.createdMs);
  txs.forEach((tx, i) => {
    tx.seq = i + 1;
    const ref = tx.merchant_reference.toLowerCase();
    if (partner.byReference.has(ref)) fail(`is damaged: merchant_reference ${tx.merchant_reference.slice(0, 60)} is used twice`);
    partner.txList.push(tx);
    partner.byReference.set(ref, tx);
  });
  const events = [...draft.events.values()].sort((a, b) => a.v.seq - b.v.seq || a.v.createdMs - b.v.createdMs);
  events.forEach(({ v, payload }, i) => partner.addEvent({ ...v, seq: i + 1 }, payload));
  const entries = [...draft.idem].map(([id, { answer_of, json, ...v }]): [string, IdempotencyEntry] => {
    if (!answer_of) return [id, { ...v, headers: v.headers, json: json ?? fail('is damaged: an idempotency key has no answer') }];
    const tx = partner.transactions.get(answer_of.tx) ?? fail(`is damaged: an idempotency key answers transaction ${answer_of.tx}, which it does not hold`);
    // A create's answer, rebuilt: the summary of its transaction with the status it had then.
    // The summary's other fields never change after the create, so these are the bytes first
    // sent (the state tests replay a key after a restart and compare them).
    return [id, { ...v, headers: v.headers, json: q({ success: true, data: { ...summary(tx), status: answer_of.status } }), answerOf: answer_of }];
  });
  partner.idempotency.restore(entries);
  partner.ledger.restore([...draft.rows.values()]);
  if (draft.seed) {
    try {
      const seeded = SeededRows.fromState(draft.seed);
      if (draft.seedText !== undefined) seedValues.set(seeded, draft.seedText);
      partner.ledger.seed(seeded);
    } catch (err) {
      fail(`is damaged: ${(err as Error).message}`);
    }
  }
  return partner;
}
