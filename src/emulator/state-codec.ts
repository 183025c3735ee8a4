// The state document: what `--state FILE` holds and what `GET`/`PUT /__emulator/state`
// carry (docs/emulator.md, "State file"). One JSON record per line:
//
//   {"k":"header","format":"offramp-emulator-state","format_version":1,"offramp_version":"…",…}
//   {"k":"partner","p":0,"key_sha256":"…","label":"partner-1"}
//   {"k":"tx","p":0,"v":{…}}        {"k":"event","p":0,"v":{…},"body":{…}}
//   {"k":"quote",…}  {"k":"idem",…}  {"k":"row",…}  {"k":"seed",…}  {"k":"clock","offset_ms":0}
//   {"k":"commit","n":8,"crc32":123456789}
//
// The emulator writes the whole state as one batch: the records, then a commit line holding
// their line count and the CRC-32 of their bytes. Reading also takes several batches one
// after the other, a later record replacing an earlier one with the same id: the state
// files of earlier builds appended the records that changed that way, and they still load.
// Reading checks each batch against its commit line: one that does not match is damage, as
// is anything after the last commit, and the whole document is refused. Nothing is
// installed until the whole document has been read and checked, so a document is loaded
// entirely or not at all.
//
// Partners are named by the SHA-256 of their key: the document never holds an API key.
//
// Two records are written short when the document itself says the rest, which makes a
// create's share of the document about 40% smaller (1.5 KB, not 2.5) and a snapshot about
// 15% quicker to encode: an event whose snapshot is its transaction as written earlier in
// the same batch says so (`"body":{"snapshot_of":"tx"}`, checked field by field before)
// instead of repeating it, and a create's stored answer, which is its transaction's
// summary, names the transaction and the status it had (`"answer_of":{"tx":ID,"status":S}`).
// The reader rebuilds the same bytes from them.
import { crc32 } from 'node:zlib';
import * as z from 'zod/mini';
import { DateTime, RevenueRow, StatusHistoryEntry, Uuid } from '../lib/schemas.js';
import type { RevenueRow as RevenueRowType } from '../lib/schemas.js';
import { Decimal } from '../lib/money.js';
import { TRANSACTION_STATUSES } from '../lib/vocabulary.js';
import { VERSION } from '../version.js';
import type { IdempotencyEntry } from './idempotency.js';
import { SeededRows } from './revenue-seed.js';
import type { EventRecord, QuoteRecord, TxRecord } from './store.js';
import { STATE_FORMAT } from './types.js';
import { PartnerState } from './store.js';
import { snapshot, summary } from './transactions.js';

export { STATE_FORMAT };
export const STATE_FORMAT_VERSION = 1;

/** A document that cannot be loaded; the message is one line saying why. */
export class StateFormatError extends Error {
  override name = 'StateFormatError';
}

// ---------------------------------------------------------------- writing

const q = JSON.stringify;

function headerLine(now: string): string {
  return q({ k: 'header', format: STATE_FORMAT, format_version: STATE_FORMAT_VERSION, offramp_version: VERSION, written_at: now });
}

function partnerLine(p: number, partner: PartnerState): string {
  return `{"k":"partner","p":${p},"key_sha256":"${partner.keyHash}","label":${q(partner.label)}}`;
}

function txLine(p: number, tx: TxRecord): string {
  // Every field of a TxRecord is plain data, so the record serialises as it is.
  return `{"k":"tx","p":${p},"v":${q(tx)}}`;
}

/**
 * An event's line. `tx` is its transaction, whose line comes earlier in the batch: if the
 * event's snapshot is that transaction as it stands, the body is not repeated.
 */
function eventLine(p: number, evt: EventRecord, tx: TxRecord | undefined): string {
  const v = q({
    seq: evt.seq,
    event_id: evt.event_id,
    aggregate_id: evt.aggregate_id,
    event_type: evt.event_type,
    createdMs: evt.createdMs,
    created_at: evt.created_at,
    updated_at: evt.updated_at,
    delivery_status: evt.delivery_status,
    attempts: evt.attempts,
    last_error: evt.last_error,
    roundAttempts: evt.roundAttempts,
  });
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

function quoteLine(p: number, quote: QuoteRecord): string {
  return `{"k":"quote","p":${p},"v":${q({ ...quote, amount: quote.amount.toString() })}}`;
}

function idempotencyLine(p: number, id: string, entry: IdempotencyEntry): string {
  const { request, status, json, headers, storedMs, answerOf } = entry;
  if (answerOf) return `{"k":"idem","p":${p},"id":${q(id)},"v":${q({ request, status, storedMs, answer_of: answerOf })}}`;
  return `{"k":"idem","p":${p},"id":${q(id)},"v":${q({ request, status, json, headers, storedMs })}}`;
}

/**
 * A create's answer, rebuilt: the summary of its transaction with the status it had then.
 * The summary's other fields never change after the create, so these are the bytes first
 * sent (the state tests replay a key after a restart and compare them).
 */
function createdAnswerJson(tx: TxRecord, status: string): string {
  return q({ success: true, data: { ...summary(tx), status } });
}

function rowLine(p: number, row: RevenueRowType): string {
  return `{"k":"row","p":${p},"v":${q(row)}}`;
}

function seedLine(p: number, seeded: SeededRows): string {
  return `{"k":"seed","p":${p},"v":${q(seeded.toState())}}`;
}

function clockLine(offsetMs: number): string {
  return `{"k":"clock","offset_ms":${offsetMs}}`;
}

/** Every record of a partner, as lines. */
function partnerRecordLines(p: number, partner: PartnerState, put: (line: string) => void): void {
  put(partnerLine(p, partner));
  for (const quote of partner.quotes.values()) put(quoteLine(p, quote));
  for (const tx of partner.txList) put(txLine(p, tx));
  for (const evt of partner.eventList) put(eventLine(p, evt, partner.transactions.get(evt.aggregate_id)));
  for (const [id, entry] of partner.idempotency.all()) put(idempotencyLine(p, id, entry));
  for (const row of partner.ledger.liveRows()) put(rowLine(p, row));
  const seeded = partner.ledger.seededBlock();
  if (seeded) put(seedLine(p, seeded));
}

/**
 * Characters per chunk: small enough for the allocator to reuse memory it already has (on
 * the 2-core machine of BENCHMARKS.md, 1 MiB chunks, each on fresh pages, made a 15 MiB
 * state several times slower to encode).
 */
const CHUNK_CHARS = 64 * 1024;

/**
 * The whole state as a document, in chunks of about CHUNK_CHARS: the header, every partner
 * (served, then dormant), the clock, the commit line. Built in one turn of the event loop,
 * so it is one moment's state.
 */
export function encodeDocument(partners: readonly PartnerState[], clockOffsetMs: number, now: string): Buffer[] {
  const chunks: Buffer[] = [];
  let text = '';
  let lines = 0;
  let crc = 0;
  const flush = () => {
    const bytes = Buffer.from(text);
    crc = crc32(bytes, crc);
    chunks.push(bytes);
    text = '';
  };
  const put = (line: string) => {
    text += `${line}\n`;
    lines++;
    if (text.length >= CHUNK_CHARS) flush();
  };
  put(headerLine(now));
  partners.forEach((partner, p) => partnerRecordLines(p, partner, put));
  put(clockLine(clockOffsetMs));
  flush();
  chunks.push(Buffer.from(`{"k":"commit","n":${lines},"crc32":${crc}}\n`));
  return chunks;
}

// ---------------------------------------------------------------- reading

export type DecodedPartner = { keyHash: string; label: string; state: PartnerState };

export type DecodedState = {
  partners: DecodedPartner[];
  clockOffsetMs: number;
};

const Int = z.int();
const NonNegInt = z.int().check(z.nonnegative());
const NullableString = z.nullable(z.string());
const Hex64 = z.string().check(z.regex(/^[0-9a-f]{64}$/));

const Header = z.object({
  k: z.literal('header'),
  format: z.string(),
  format_version: z.number(),
  offramp_version: z.string(),
  written_at: z.string(),
});

const schemas = {
  partner: () => z.object({ p: NonNegInt, key_sha256: Hex64, label: z.string() }),
  tx: () =>
    z.object({
      p: NonNegInt,
      v: z.object({
        seq: Int,
        id: Uuid,
        status: z.enum(TRANSACTION_STATUSES),
        deposit_address: z.string(),
        network: z.string(),
        crypto_currency: z.string(),
        crypto_amount: z.string(),
        rate: z.string(),
        amount: z.string(),
        createdMs: z.number(),
        created_at: DateTime,
        updated_at: DateTime,
        expiresMs: z.number(),
        expires_at: DateTime,
        merchant_reference: z.string(),
        merchant_id: NullableString,
        terminal_id: NullableString,
        seller_phone: NullableString,
        quote_id: NullableString,
        deposit: z.nullable(
          z.object({
            deposit_id: z.string(),
            blockchain_hash: z.string(),
            status: z.enum(['detected', 'confirmed', 'refunded']),
            confirmations: Int,
            required_confirmations: Int,
            received_at: z.string(),
            confirmed_at: NullableString,
          }),
        ),
        payoutSettled: z.boolean(),
        history: z.array(StatusHistoryEntry),
      }),
    }),
  event: () =>
    z.object({
      p: NonNegInt,
      v: z.object({
        seq: Int,
        event_id: Uuid,
        aggregate_id: Uuid,
        event_type: z.string(),
        createdMs: z.number(),
        created_at: DateTime,
        updated_at: DateTime,
        delivery_status: z.enum(['pending', 'delivered', 'failed']),
        attempts: NonNegInt,
        last_error: NullableString,
        roundAttempts: NonNegInt,
      }),
      body: z.nullable(
        z.union([z.object({ snapshot_of: z.literal('tx') }), z.object({ id: Uuid, type: z.string(), data: z.nullable(z.record(z.string(), z.unknown())) })]),
      ),
    }),
  quote: () =>
    z.object({
      p: NonNegInt,
      v: z.object({
        quote_id: Uuid,
        token: z.string(),
        network: z.string(),
        unit: z.enum(['fiat', 'token']),
        amount: z.string().check(z.regex(/^\d+(\.\d+)?$/)),
        base_rate: z.string(),
        adjusted_rate: z.string(),
        expiresMs: z.number(),
        expires_at: DateTime,
      }),
    }),
  idem: () =>
    z.object({
      p: NonNegInt,
      id: z.string(),
      v: z.object({
        request: z.object({ text: z.string(), structural: z.boolean() }),
        status: Int,
        json: z.optional(z.string()),
        answer_of: z.optional(z.object({ tx: Uuid, status: z.enum(TRANSACTION_STATUSES) })),
        headers: z.optional(z.record(z.string(), z.string())),
        storedMs: z.number(),
      }),
    }),
  row: () => z.object({ p: NonNegInt, v: RevenueRow }),
  seed: () =>
    z.object({
      p: NonNegInt,
      v: z.object({
        pairs: z.array(z.object({ token: z.string(), network: z.string() })),
        rate_kobo: Int,
        ts: z.string(),
        kobo: z.string(),
        pair: z.string(),
        ids: z.string(),
      }),
    }),
  clock: () => z.object({ offset_ms: NonNegInt }),
} as const;

type Kind = keyof typeof schemas;
type Parsed<K extends Kind> = z.infer<ReturnType<(typeof schemas)[K]>>;

const built = new Map<Kind, z.core.$ZodType>();
function schemaOf<K extends Kind>(kind: K): ReturnType<(typeof schemas)[K]> {
  let schema = built.get(kind);
  if (!schema) built.set(kind, (schema = schemas[kind]()));
  return schema as ReturnType<(typeof schemas)[K]>;
}

/** What a partner's records add up to while a document is read (later records replace earlier ones). */
class PartnerDraft {
  readonly txs = new Map<string, Parsed<'tx'>['v']>();
  /** Each event with its snapshot (the delivery body's `data`). */
  readonly events = new Map<string, { v: Parsed<'event'>['v']; payload: object | null }>();
  readonly quotes = new Map<string, Parsed<'quote'>['v']>();
  readonly idem = new Map<string, Parsed<'idem'>['v']>();
  readonly rows = new Map<string, RevenueRowType>();
  seed: Parsed<'seed'>['v'] | undefined;
  constructor(
    readonly keyHash: string,
    readonly label: string,
  ) {}
}

/** Reads a document; `what` names it in the error. */
export function decodeDocument(bytes: Buffer, what: string): DecodedState {
  const fail = (why: string): never => {
    throw new StateFormatError(`${what} ${why}`);
  };
  const firstEnd = bytes.indexOf(0x0a);
  const firstLine = bytes.toString('utf8', 0, firstEnd < 0 ? Math.min(bytes.length, 4096) : firstEnd);
  let header: z.infer<typeof Header>;
  try {
    const parsed = Header.safeParse(JSON.parse(firstLine));
    if (!parsed.success) throw new Error('not a header');
    header = parsed.data;
  } catch {
    return fail('is not an offramp emulator state (its first line is not the state header)');
  }
  if (header.format !== STATE_FORMAT) fail(`is not an offramp emulator state (format "${header.format.slice(0, 40)}")`);
  if (header.format_version !== STATE_FORMAT_VERSION || header.offramp_version !== VERSION) {
    fail(
      `was written by offramp ${header.offramp_version.slice(0, 40)} (state format ${header.format_version}); this is offramp ${VERSION} (state format ${STATE_FORMAT_VERSION}), which reads only its own`,
    );
  }

  const drafts = new Map<number, PartnerDraft>();
  /** The transactions written in the batch being applied, by `p:id`: what a short event body refers to. */
  const batchTxs = new Map<string, TxRecord>();
  let clockOffsetMs = 0;
  let batchStart = 0;
  let batch: string[] = [];
  let committed = 0;
  let lineNo = 0;
  let pos = 0;
  while (pos < bytes.length) {
    const end = bytes.indexOf(0x0a, pos);
    if (end < 0) break; // an unfinished last line, refused below
    const line = bytes.toString('utf8', pos, end);
    lineNo++;
    if (line.startsWith('{"k":"commit"')) {
      let commit: { n?: unknown; crc32?: unknown };
      try {
        commit = JSON.parse(line) as typeof commit;
      } catch {
        return fail(`is damaged: line ${lineNo} is not JSON`);
      }
      if (commit.n !== batch.length || commit.crc32 !== crc32(bytes.subarray(batchStart, pos))) {
        fail(`is damaged: the batch ending at line ${lineNo} does not match its checksum`);
      }
      batchTxs.clear();
      for (const [i, text] of batch.entries()) apply(text, lineNo - batch.length + i);
      committed++;
      batch = [];
      batchStart = end + 1;
    } else {
      batch.push(line);
    }
    pos = end + 1;
  }
  if (committed === 0) fail('is damaged: it holds no complete batch');
  if (batchStart < bytes.length) fail('is incomplete: it does not end with a commit line');

  function apply(text: string, at: number): void {
    let record: { k?: unknown };
    try {
      record = JSON.parse(text) as { k?: unknown };
    } catch {
      return fail(`is damaged: line ${at} is not JSON`);
    }
    const kind = record.k;
    if (kind === 'header') return;
    if (typeof kind !== 'string' || !(kind in schemas)) return fail(`is damaged: line ${at} has an unknown record kind`);
    const parsed = schemaOf(kind as Kind).safeParse(record);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return fail(`is damaged: line ${at} (${kind}) ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'is malformed'}`);
    }
    if (kind === 'clock') {
      clockOffsetMs = (parsed.data as Parsed<'clock'>).offset_ms;
      return;
    }
    if (kind === 'partner') {
      const p = parsed.data as Parsed<'partner'>;
      const existing = drafts.get(p.p);
      if (existing && existing.keyHash !== p.key_sha256) fail(`is damaged: line ${at} gives partner ${p.p} another key`);
      if (!existing) drafts.set(p.p, new PartnerDraft(p.key_sha256, p.label));
      return;
    }
    const data = parsed.data as { p: number };
    const draft = drafts.get(data.p);
    if (!draft) return fail(`is damaged: line ${at} names partner ${data.p} before it is declared`);
    switch (kind) {
      case 'tx': {
        const v = (parsed.data as Parsed<'tx'>).v;
        draft.txs.set(v.id, v);
        batchTxs.set(`${data.p}:${v.id}`, v as TxRecord);
        break;
      }
      case 'event': {
        const e = parsed.data as Parsed<'event'>;
        let payload: object | null = null;
        if (e.body && 'snapshot_of' in e.body) {
          const tx = batchTxs.get(`${data.p}:${e.v.aggregate_id}`);
          if (!tx) return fail(`is damaged: line ${at} refers to a transaction its batch does not hold`);
          payload = snapshot(tx);
        } else if (e.body) {
          if (e.body.id !== e.v.event_id || e.body.type !== e.v.event_type) return fail(`is damaged: line ${at} carries another event's body`);
          payload = e.body.data;
        }
        draft.events.set(e.v.event_id, { v: e.v, payload });
        break;
      }
      case 'quote': {
        const v = (parsed.data as Parsed<'quote'>).v;
        draft.quotes.set(v.quote_id, v);
        break;
      }
      case 'idem': {
        const r = parsed.data as Parsed<'idem'>;
        draft.idem.set(r.id, r.v);
        break;
      }
      case 'row': {
        const v = (parsed.data as Parsed<'row'>).v;
        draft.rows.set(v.transaction_id, v);
        break;
      }
      case 'seed':
        draft.seed = (parsed.data as Parsed<'seed'>).v;
        break;
    }
  }

  const partners = [...drafts.values()].map((draft) => ({ keyHash: draft.keyHash, label: draft.label, state: build(draft, fail) }));
  const hashes = new Set<string>();
  for (const p of partners) {
    if (hashes.has(p.keyHash)) fail('is damaged: two partners have the same key');
    hashes.add(p.keyHash);
  }
  return { partners, clockOffsetMs };
}

/** A partner's records as the emulator's structures; refuses what cannot hold together. */
function build(draft: PartnerDraft, fail: (why: string) => never): PartnerState {
  const partner = new PartnerState(draft.label, draft.keyHash);
  for (const v of draft.quotes.values()) {
    partner.quotes.set(v.quote_id, { ...v, amount: new Decimal(v.amount) });
  }
  // Creation order is the order of pages; `seq` is renumbered from it so that it is the
  // index plus one again, which the pager relies on.
  const txs = [...draft.txs.values()].sort((a, b) => a.seq - b.seq || a.createdMs - b.createdMs);
  txs.forEach((v, i) => {
    const tx: TxRecord = { ...v, seq: i + 1, history: v.history as TxRecord['history'] };
    const ref = tx.merchant_reference.toLowerCase();
    if (partner.byReference.has(ref)) fail(`is damaged: merchant_reference ${tx.merchant_reference.slice(0, 60)} is used twice`);
    partner.transactions.set(tx.id, tx);
    partner.txList.push(tx);
    partner.byReference.set(ref, tx);
  });
  const events = [...draft.events.values()].sort((a, b) => a.v.seq - b.v.seq || a.v.createdMs - b.v.createdMs);
  events.forEach(({ v, payload }, i) => {
    const evt: EventRecord = {
      ...v,
      seq: i + 1,
      delivery_status: v.delivery_status,
      payload,
      body: null,
      inFlight: false,
      replayQueued: false,
      cancelScheduled: null,
      owner: partner,
      held: false,
    };
    partner.events.set(evt.event_id, evt);
    partner.eventList.push(evt);
  });
  const entries: [string, IdempotencyEntry][] = [];
  for (const [id, v] of draft.idem) {
    let json = v.json;
    if (json === undefined && v.answer_of) {
      const tx = partner.transactions.get(v.answer_of.tx);
      if (!tx) fail(`is damaged: an idempotency key answers transaction ${v.answer_of.tx}, which it does not hold`);
      json = createdAnswerJson(tx!, v.answer_of.status);
    }
    if (json === undefined) fail('is damaged: an idempotency key has no answer');
    const entry: IdempotencyEntry = { request: v.request, status: v.status, json: json!, headers: v.headers, storedMs: v.storedMs };
    if (v.answer_of) entry.answerOf = v.answer_of;
    entries.push([id, entry]);
  }
  partner.idempotency.restore(entries);
  partner.ledger.restore([...draft.rows.values()]);
  if (draft.seed) {
    try {
      partner.ledger.seed(SeededRows.fromState(draft.seed));
    } catch (err) {
      fail(`is damaged: ${(err as Error).message}`);
    }
  }
  return partner;
}
