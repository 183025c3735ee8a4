// Webhook signatures: sign, verify and detect under the catalogue of docs/webhooks.md
// ("Webhook signatures"). The spec leaves the algorithm "not shown" and a real service may
// sign in any of the common ways, so verification accepts any scheme unless one is pinned.
//
// Every digest comparison is constant time and every candidate is compared even after one
// matched, so the time taken never depends on how much of a forged signature was right. Only
// the header's form (length, alphabet, prefix) is branched on: the sender chose it, and it
// says nothing about the expected digest. Secrets never appear in a result or a reason.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { UsageError } from '../errors.js';

/** The headers of a delivery as the spec spells them, sent so; Node reads them lower-cased (SIGNATURE_HEADER). */
export const WEBHOOK_HEADERS = { signature: 'X-SVC-Webhook-Signature', id: 'X-SVC-Webhook-Id', timestamp: 'X-SVC-Webhook-Timestamp' } as const;
export const SIGNATURE_HEADER = WEBHOOK_HEADERS.signature.toLowerCase();

export const SCHEMES = [
  'hmac-sha256-hex',
  'hmac-sha256-base64',
  'hmac-sha512-hex',
  'hmac-sha512-base64',
  'prefixed-sha256-hex',
  'prefixed-sha512-hex',
  'timestamped-sha256',
] as const;
export type SchemeName = (typeof SCHEMES)[number];

/** What the emulator signs with unless told otherwise (docs/api.md, "Open points"). */
export const DEFAULT_SCHEME: SchemeName = 'hmac-sha256-hex';
/** Largest difference between a timestamped signature's `t` and now, either way. */
export const DEFAULT_TOLERANCE_SEC = 300;

export function isScheme(name: string): name is SchemeName {
  return (SCHEMES as readonly string[]).includes(name);
}

/** A scheme from a flag or a profile; undefined for "any" (`any` overrides a profile's pin). */
export function schemeSetting(value: string | undefined, source: string): SchemeName | undefined {
  const name = value?.trim();
  if (name === undefined || name === 'any') return undefined;
  if (isScheme(name)) return name;
  throw new UsageError(`${source}: unknown signature scheme "${value}"`, `the catalogue: ${SCHEMES.join(', ')} (or any)`);
}

export type VerifyOptions = {
  /** Accept only this scheme; default: any scheme of the catalogue. */
  scheme?: string;
  /** For timestamped-sha256; default DEFAULT_TOLERANCE_SEC. */
  toleranceSec?: number;
  /** The clock timestamped signatures are checked against; default the system's. */
  now?: Date;
};

/** Why a verification failed, for callers that word their own message or hint. */
type FailureKind =
  | 'no-signature' // header absent or empty
  | 'no-secret' // nothing to verify with
  | 'unknown-scheme' // the pinned scheme is not in the catalogue
  | 'malformed' // the header has the form of no (pinned) scheme
  | 'other-scheme' // it verifies, but under another scheme than the pinned one
  | 'mismatch' // right form, wrong digest: wrong secret or changed body
  | 'outside-tolerance'; // timestamped, correct, but t is too far from now

export type VerifyResult =
  | { ok: true; scheme: SchemeName; secretIndex: number }
  | { ok: false; reason: string; kind: FailureKind; /** with kind other-scheme: the scheme that verifies */ scheme?: SchemeName };

/**
 * The header value for `rawBody` under `scheme`. With two arguments: the emulator's default,
 * lowercase hex HMAC-SHA256. `now` is the signing time of timestamped-sha256 (default: now).
 */
export function sign(rawBody: string | Buffer, secret: string, scheme: string = DEFAULT_SCHEME, now?: Date): string {
  const algorithm: Algorithm = scheme.includes('sha512') ? 'sha512' : 'sha256';
  if (!isScheme(scheme)) throw new RangeError(`unknown signature scheme "${scheme}"; the catalogue: ${SCHEMES.join(', ')}`);
  if (scheme === 'timestamped-sha256') {
    const t = String(Math.floor((now ?? new Date()).getTime() / 1000));
    return `t=${t},v1=${hmac('sha256', secret, timestampedPayload(t, rawBody)).toString('hex')}`;
  }
  // The rest is named by what it holds: the digest's algorithm, its encoding, a prefix.
  const digest = hmac(algorithm, secret, rawBody);
  if (scheme.endsWith('-base64')) return digest.toString('base64');
  return `${scheme.startsWith('prefixed-') ? `${algorithm}=` : ''}${digest.toString('hex')}`;
}

/**
 * Checks `header` against the body with each secret (in order; `secretIndex` says which
 * matched). Without `opts.scheme`, any scheme of the catalogue is accepted and the most
 * specific one that matched is reported (`prefixed-sha256-hex` for `sha256=<hex>`, though
 * `hmac-sha256-hex` accepts that form too). Never throws.
 */
export function verify(rawBody: string | Buffer, secrets: string | readonly string[], header: string | undefined, opts: VerifyOptions = {}): VerifyResult {
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  const fail = (kind: FailureKind, reason: string, scheme?: SchemeName): VerifyResult => ({ ok: false, kind, reason, ...(scheme ? { scheme } : {}) });
  const pinned = opts.scheme;
  if (pinned !== undefined && !isScheme(pinned)) return fail('unknown-scheme', `unknown signature scheme "${pinned}"; the catalogue: ${SCHEMES.join(', ')}`);
  if (!keys.some((k) => typeof k === 'string' && k !== '')) return fail('no-secret', 'no webhook secret to verify with');
  const value = header?.trim() ?? '';
  if (value === '') return fail('no-signature', 'no signature');
  const candidates = parseHeader(value, pinned);
  const found = matching(candidates, rawBody, keys, opts);
  // Candidates come most specific first; the first match wins.
  const fresh = found.find((m) => m.fresh);
  if (fresh) return { ok: true, scheme: fresh.scheme, secretIndex: fresh.secretIndex };
  const stale = found[0];
  if (stale?.t !== undefined) {
    const diff = Math.floor((opts.now ?? new Date()).getTime() / 1000) - stale.t;
    const how = diff > 0 ? `${diff} s old` : `${-diff} s in the future`;
    const tolerance = opts.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
    return fail('outside-tolerance', `the timestamped signature matches, but its timestamp (t=${stale.t}) is ${how}, outside the tolerance of ${tolerance} s`);
  }
  if (pinned !== undefined) {
    const other = verify(rawBody, keys, value, { ...opts, scheme: undefined });
    if (other.ok) return fail('other-scheme', `signed with ${other.scheme}, but only ${pinned} is accepted`, other.scheme);
  }
  if (candidates.length === 0) {
    return fail('malformed', pinned ? `the signature is not in the form of ${pinned} (${FORMS[pinned].accepts})` : 'the signature has the form of no scheme of the catalogue');
  }
  return fail('mismatch', 'signature does not match the body');
}

/**
 * Every (scheme, secret) under which the delivery verifies, most specific scheme first. For
 * a delivery read back from a store, pass `now` = the time it was received, so a timestamped
 * signature is judged as it was then.
 */
export function detect(
  rawBody: string | Buffer,
  header: string | undefined,
  secrets: readonly { label: string; secret: string }[],
  opts: VerifyOptions = {},
): { scheme: SchemeName; secretLabel: string }[] {
  const candidates = parseHeader(header?.trim() ?? '', opts.scheme);
  const out: { scheme: SchemeName; secretLabel: string }[] = [];
  for (const m of matching(candidates, rawBody, secrets.map((s) => s.secret), opts)) {
    const secretLabel = secrets[m.secretIndex]!.label;
    if (m.fresh && !out.some((o) => o.scheme === m.scheme && o.secretLabel === secretLabel)) out.push({ scheme: m.scheme, secretLabel });
  }
  return out;
}

type Algorithm = 'sha256' | 'sha512';
const DIGEST_BYTES: Record<Algorithm, number> = { sha256: 32, sha512: 64 };

/** One way the header could be read: a scheme, the digest(s) it claims, and what was signed. */
type Candidate = {
  scheme: SchemeName;
  algorithm: Algorithm;
  /** Claimed digests, each already DIGEST_BYTES long; any may match (several v1 entries). */
  digests: Buffer[];
  /** timestamped-sha256: the `t` value as sent (signed verbatim) and as a number. */
  tText?: string;
  t?: number;
};

/**
 * Each scheme's header: `accepts`, the forms verification takes (said when a pinned one is
 * not met); `pattern` and `computation`, the form it is sent in (conform's overlay).
 */
export const FORMS: Record<SchemeName, { accepts: string; pattern: string; computation: string }> = {
  'hmac-sha256-hex': { accepts: '64 hex characters, optionally after sha256=', pattern: '^[0-9a-f]{64}$', computation: 'lowercase hex HMAC-SHA256 of the raw body' },
  'hmac-sha256-base64': { accepts: '44 base64 characters (43 unpadded), optionally after sha256=', pattern: '^[A-Za-z0-9+/]{43}=$', computation: 'base64 HMAC-SHA256 of the raw body' },
  'hmac-sha512-hex': { accepts: '128 hex characters, optionally after sha512=', pattern: '^[0-9a-f]{128}$', computation: 'lowercase hex HMAC-SHA512 of the raw body' },
  'hmac-sha512-base64': { accepts: '88 base64 characters (86 unpadded), optionally after sha512=', pattern: '^[A-Za-z0-9+/]{86}==$', computation: 'base64 HMAC-SHA512 of the raw body' },
  'prefixed-sha256-hex': { accepts: 'sha256= then 64 hex characters', pattern: '^sha256=[0-9a-f]{64}$', computation: 'sha256= and the lowercase hex HMAC-SHA256 of the raw body' },
  'prefixed-sha512-hex': { accepts: 'sha512= then 128 hex characters', pattern: '^sha512=[0-9a-f]{128}$', computation: 'sha512= and the lowercase hex HMAC-SHA512 of the raw body' },
  'timestamped-sha256': {
    accepts: 't=<unix seconds>,v1=<64 hex characters>',
    pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$',
    computation: 't=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>">; refuse a t far from now',
  },
};

function hmac(algorithm: Algorithm, secret: string, data: string | Buffer): Buffer {
  return createHmac(algorithm, secret).update(data).digest();
}

function timestampedPayload(t: string, body: string | Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${t}.`, 'utf8'), typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}

/**
 * Each (candidate, secret) whose HMAC one of the candidate's digests matches, candidates
 * in order, then secrets; `fresh` false when its timestamp is outside the tolerance. Every
 * digest of every candidate is compared, with no early exit. An HMAC is computed once per
 * (algorithm, signed timestamp, secret): `sha256=<hex>` reads as two schemes of one digest.
 */
function matching(candidates: Candidate[], rawBody: string | Buffer, secrets: readonly string[], opts: VerifyOptions) {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const tolerance = opts.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  const nowSec = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  const computed = new Map<string, Buffer>();
  const out: { scheme: SchemeName; secretIndex: number; t: number | undefined; fresh: boolean }[] = [];
  for (const c of candidates) {
    for (let secretIndex = 0; secretIndex < secrets.length; secretIndex++) {
      // An empty secret is no secret: an HMAC under it would be anyone's to forge.
      const secret = secrets[secretIndex];
      if (!secret) continue;
      const key = `${c.algorithm}:${c.tText ?? ''}:${secretIndex}`;
      let expected = computed.get(key);
      if (!expected) computed.set(key, (expected = hmac(c.algorithm, secret, c.tText !== undefined ? timestampedPayload(c.tText, body) : body)));
      let ok = false;
      // Equal lengths by construction (parseHeader keeps only full-length digests).
      for (const digest of c.digests) if (digest.length === expected.length && timingSafeEqual(digest, expected)) ok = true;
      if (ok) out.push({ scheme: c.scheme, secretIndex, t: c.t, fresh: c.t === undefined || Math.abs(nowSec - c.t) <= tolerance });
    }
  }
  return out;
}

/** The header's possible readings (under `pinned` alone when given), most specific first; form only, nothing secret. */
function parseHeader(value: string, pinned: string | undefined): Candidate[] {
  const out: Candidate[] = [];
  // Without an `=` the header is a bare digest: neither timestamped nor prefixed.
  const hasEquals = value.includes('=');
  const timestamped = hasEquals ? parseTimestamped(value) : undefined;
  if (timestamped) out.push(timestamped);
  const prefix = hasEquals ? /^(sha256|sha512)=(.*)$/is.exec(value) : null;
  const algorithmOfPrefix = prefix ? (prefix[1]!.toLowerCase() as Algorithm) : undefined;
  const rest = prefix ? prefix[2]!.trim() : value;
  const algorithms: Algorithm[] = algorithmOfPrefix ? [algorithmOfPrefix] : ['sha256', 'sha512'];
  for (const algorithm of algorithms) {
    const hex = decodeHex(rest, DIGEST_BYTES[algorithm]);
    if (hex) {
      if (algorithmOfPrefix) out.push({ scheme: `prefixed-${algorithm}-hex`, algorithm, digests: [hex] });
      out.push({ scheme: `hmac-${algorithm}-hex`, algorithm, digests: [hex] });
    }
  }
  for (const algorithm of algorithms) {
    const b64 = decodeBase64(rest, DIGEST_BYTES[algorithm]);
    if (b64) out.push({ scheme: `hmac-${algorithm}-base64`, algorithm, digests: [b64] });
  }
  return out.filter((c) => pinned === undefined || c.scheme === pinned);
}

function decodeHex(text: string, bytes: number): Buffer | undefined {
  return text.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(text) ? Buffer.from(text, 'hex') : undefined;
}

function decodeBase64(text: string, bytes: number): Buffer | undefined {
  const padded = Math.ceil(bytes / 3) * 4;
  const bare = Math.ceil((bytes * 4) / 3);
  // The length first: it rules out most headers (a hex digest) before any pattern is run.
  if (text.length !== padded && text.length !== bare) return undefined;
  // The standard alphabet or the url-safe one, not a mix.
  if (!/^([A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}$/.test(text)) return undefined;
  const unpadded = text.replace(/=+$/, '');
  // Unpadded, or padded exactly as the standard pads this length.
  if (!(text.length === bare && unpadded.length === bare) && !(text.length === padded && unpadded.length === bare)) return undefined;
  const standard = unpadded.replace(/-/g, '+').replace(/_/g, '/');
  const decoded = Buffer.from(standard, 'base64');
  // Canonical only: the last character's unused bits must be zero, or one digest would
  // have several accepted spellings (an altered header that still verifies).
  return decoded.length === bytes && decoded.toString('base64').replace(/=+$/, '') === standard ? decoded : undefined;
}

/** `t=<digits>,v1=<hex>[,v1=<hex>...]` with any other keys; undefined when not that form. */
function parseTimestamped(value: string): Candidate | undefined {
  if (!/(^|,)\s*t\s*=/.test(value)) return undefined;
  let tText: string | undefined;
  let tCount = 0;
  const digests: Buffer[] = [];
  for (const part of value.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const val = part.slice(at + 1).trim();
    if (key === 't') {
      tCount++;
      tText = val;
    } else if (key === 'v1') {
      const digest = decodeHex(val, DIGEST_BYTES.sha256);
      if (digest) digests.push(digest);
    }
  }
  // One timestamp exactly: with two, which one was signed would be a guess.
  if (tCount !== 1 || tText === undefined || !/^\d{1,12}$/.test(tText) || digests.length === 0) return undefined;
  return { scheme: 'timestamped-sha256', algorithm: 'sha256', digests, tText, t: Number(tText) };
}
