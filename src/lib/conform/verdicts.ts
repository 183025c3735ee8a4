// What `offramp conform` concludes from what the probes observed of the target service,
// set beside the emulator's choices as src/lib/openapi/open-points.ts records them; the
// verdicts are docs/api.md's. Pure: no I/O, so every verdict rule is tested from hand-made
// observations.
import type { CursorLocation } from '../client/paginate.js';
import { DEFAULT_DELIVERED_STATUS, DEFAULT_FAILED_STATUS, FILTERS, type FilteredList, type ServiceChoices } from '../config/profile.js';
import { EMULATOR } from '../openapi/open-points.js';

export const VERDICTS = ['same', 'handled', 'needs-setting', 'saved', 'unsupported', 'skipped'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** One line of the report, as `--json` prints it. */
export type Finding = { point: string; emulator: string; observed: string; verdict: Verdict; action?: string };

/** What `--save` writes for a needs-setting finding. */
export type Setting =
  | { kind: 'filterName'; list: FilteredList; filter: string; name: string }
  | { kind: 'failedStatus' | 'deliveredStatus' | 'signatureScheme'; value: string };

/** A finding with the setting that would resolve it (never printed as such). */
export type Assessed = Finding & { setting?: Setting };

/** The calls whose success status is probed, in report order, each with its operation (path and method) in the OpenAPI document. */
export const CALL_OPERATIONS = {
  quote: ['/quotes', 'post'],
  create: ['/transactions', 'post'],
  get: ['/transactions/:id', 'get'],
  'get by reference': ['/transactions/reference/:merchant_reference', 'get'],
  list: ['/transactions', 'get'],
  cancel: ['/transactions/:id/cancel', 'post'],
  'status-history': ['/transactions/:id/status-history', 'get'],
  revenue: ['/revenue', 'get'],
  'webhook list': ['/webhooks/events', 'get'],
  'webhook get': ['/webhooks/events/:event_id', 'get'],
  'webhook replay': ['/webhooks/events/:event_id/replay', 'post'],
  simulate: ['/sandbox/simulate', 'post'],
} as const satisfies Record<string, readonly [path: string, method: 'get' | 'post']>;
export type CallName = keyof typeof CALL_OPERATIONS;
export const CALLS = Object.keys(CALL_OPERATIONS) as CallName[];

/** A call answered 2xx (`status`), answered an error (`failed`), or was not made (`skipped`). */
export type CallObs = { status: number } | { failed: { status: number; code?: string | undefined; message: string } } | { skipped: string };

export type DefaultSize = {
  /** The page size the answer states (`limit`, `page_size`, `per_page`), when it does. */
  stated?: number;
  /** Items on the page asked for without a limit. */
  count: number;
  /** Whether that page said more follow. */
  more: boolean;
};

export type ListObs =
  | { skipped: string }
  | {
      /** Where the items were; `none` when the answer held no list. */
      shape: 'page-object' | 'array' | 'none';
      /** Where the cursor (or has_more) of a `limit=1` page was found. */
      location: CursorLocation;
      /** Whether at least 2 records exist, so the `limit=1` page had to continue. */
      mustContinue: boolean;
      /** Following the `limit=1` page's cursor: worked, was refused, came back with the same record, or there was no cursor. */
      follow: 'ok' | 'refused' | 'same-page' | 'no-cursor' | 'not-needed';
      followError?: string;
      defaultSize: DefaultSize;
    };

/** For one filter: the name the service honoured, or that none of those tried was. */
export type FilterObs = { honoured: string } | { ignored: string[] } | { unclear: string } | { skipped: string };

export type ErrorCase = '400' | '401' | '404' | '409';
export type ErrorObs = { status: number; code: string | undefined; enveloped: boolean } | { accepted: number } | { skipped: string };

/** Values seen for an open field (`null` written as "null"). */
export type ValuesObs = { seen: string[] } | { skipped: string };

export type SignatureObs = { schemes: string[]; deliveries: number } | { skipped: string };

export type Observation = {
  calls: Partial<Record<CallName, CallObs>>;
  lists: Partial<Record<FilteredList, ListObs>>;
  filters: { [L in FilteredList]?: Partial<Record<string, FilterObs>> };
  errors: Partial<Record<ErrorCase, ErrorObs>>;
  /** Request-id headers (of REQUEST_ID_HEADERS) seen on the answers. */
  requestIdHeaders: string[];
  values: { deposit_status: ValuesObs; delivery_status: ValuesObs; publish_status: ValuesObs };
  /** Retry-After of every 429 met ('' when a 429 came without one). */
  retryAfter: string[];
  signature: SignatureObs;
};

export function emptyObservation(): Observation {
  return {
    calls: {},
    lists: {},
    filters: {},
    errors: {},
    requestIdHeaders: [],
    values: { deposit_status: { seen: [] }, delivery_status: { seen: [] }, publish_status: { seen: [] } },
    retryAfter: [],
    signature: { skipped: 'not checked' },
  };
}

/** Every finding, in report order; `service` is what the profile already records about the target. */
export function assess(target: Observation, opts: { service: ServiceChoices }): Assessed[] {
  return [
    ...CALLS.map((name) => assessCall(name, target.calls[name])),
    ...LISTS.map((list) => assessList(list, target.lists[list])),
    ...LISTS.map((list) => assessPageSize(list, target.lists[list])),
    ...LISTS.flatMap((list) => FILTERS[list].map((filter) => assessFilter(list, filter, target.filters[list]?.[filter], opts.service))),
    ...(['400', '401', '404', '409'] as const).map((c) => assessError(c, target.errors[c])),
    assessRequestId(target.requestIdHeaders),
    assessValues('deposit_status', target.values.deposit_status),
    assessDeliveryStatus(target.values.delivery_status, opts.service),
    assessDeliveredStatus(target.values.delivery_status, opts.service),
    assessValues('publish_status', target.values.publish_status),
    assessRetryAfter(target.retryAfter),
    assessSignature(target.signature, opts.service),
  ];
}

const LISTS = ['transactions', 'webhooks', 'revenue'] as const satisfies readonly FilteredList[];
const LIST_LABEL: Record<FilteredList, string> = { transactions: 'transactions', webhooks: 'webhook events', revenue: 'revenue' };

const ERROR_POINT: Record<ErrorCase, string> = {
  '400': 'error: 400 (both amounts)',
  '401': 'error: 401 (wrong key)',
  '404': 'error: 404 (unknown id)',
  '409': 'error: 409 (cancel completed)',
};

/** Each finding's point: the report's first column, and the key the overlay looks findings up by. */
export const POINT = {
  status: (call: CallName) => `status: ${call}`,
  list: (list: FilteredList) => `list: ${LIST_LABEL[list]}`,
  pageSize: (list: FilteredList) => `page size: ${LIST_LABEL[list]}`,
  filter: (list: FilteredList, filter: string) => `filter: ${list} ${filter}`,
  error: (which: ErrorCase) => ERROR_POINT[which],
  values: (field: string) => `values: ${field}`,
  delivered: 'delivery_status: delivered',
  requestId: 'request-id header',
  retryAfter: 'Retry-After',
  signature: 'signature scheme',
};

function finding(point: string, emulator: string, observed: string, verdict: Verdict, action?: string, setting?: Setting): Assessed {
  return { point, emulator, observed, verdict, ...(action ? { action } : {}), ...(setting ? { setting } : {}) };
}

export function assessCall(name: CallName, target: CallObs | undefined): Assessed {
  const point = POINT.status(name);
  const status: number = name === 'quote' || name === 'create' ? EMULATOR.createdStatus : EMULATOR.okStatus;
  const e = String(status);
  if (!target || 'skipped' in target) return finding(point, e, target?.skipped ?? 'not probed', 'skipped');
  if ('failed' in target) {
    const t = `${target.failed.status || 'no answer'}${target.failed.code ? ` ${target.failed.code}` : ''}`;
    return finding(point, e, t, 'unsupported', `the call failed: ${target.failed.message}`);
  }
  const t = String(target.status);
  if (target.status === status) return finding(point, e, t, 'same');
  // The client takes any 2xx as success (src/lib/client/http.ts); the status is not checked.
  return finding(point, e, t, 'handled', 'the CLI accepts any 2xx');
}

const LOCATION_TEXT: Record<CursorLocation, string> = {
  data: 'cursor in data',
  'data.meta': 'cursor in data.meta',
  'data.pagination': 'cursor in data.pagination',
  wrapper: 'cursor beside data',
  meta: 'cursor in meta',
  pagination: 'cursor in pagination',
  none: 'no cursor found',
};

export function describeList(o: { shape: 'page-object' | 'array' | 'none'; location: CursorLocation }): string {
  if (o.shape === 'none') return 'no list in the answer';
  return `${o.shape === 'page-object' ? 'page object' : 'array'}, ${LOCATION_TEXT[o.location]}`;
}

export function assessList(list: FilteredList, target: ListObs | undefined): Assessed {
  const point = POINT.list(list);
  const e = describeList(EMULATOR.list);
  if (!target || 'skipped' in target) return finding(point, e, target?.skipped ?? 'not probed', 'skipped');
  const t = describeList(target);
  if (target.shape === 'none') return finding(point, e, t, 'unsupported', 'the answer holds no list the CLI can read');
  if (target.mustContinue && target.follow === 'no-cursor') {
    // paginate() errors on such a page rather than stopping quietly (IncompleteListError).
    return finding(point, e, t, 'unsupported', 'a page that must continue carried no cursor: the CLI stops with an error, so these lists cannot be used');
  }
  if (target.follow === 'refused' || target.follow === 'same-page') {
    const why = target.follow === 'refused' ? `the next page was refused${target.followError ? ` (${target.followError})` : ''}` : 'the next page repeated the first';
    return finding(point, e, `${t}; cursor does not work`, 'unsupported', `${why}: the CLI cannot page this list`);
  }
  if (!target.mustContinue && target.location === 'none') {
    return finding(point, e, `${t} (fewer than 2 records)`, 'skipped', 'not enough records to see where the cursor goes');
  }
  if (e === t) return finding(point, e, t, 'same');
  return finding(point, e, t, 'handled', 'the CLI reads the cursor there');
}

function describeSize(d: DefaultSize): string {
  if (d.stated !== undefined) return String(d.stated);
  if (d.more) return String(d.count);
  return d.count === 0 ? 'unknown (no records)' : `${d.count} or more`;
}

export function assessPageSize(list: FilteredList, target: ListObs | undefined): Assessed {
  const point = POINT.pageSize(list);
  const e = String(EMULATOR.pageSize[list]);
  if (!target || 'skipped' in target) return finding(point, e, target?.skipped ?? 'not probed', 'skipped');
  const t = describeSize(target.defaultSize);
  if (e === t) return finding(point, e, t, 'same');
  return finding(point, e, t, 'handled', 'informational: the CLI always sends a limit');
}

export function assessFilter(list: FilteredList, filter: string, target: FilterObs | undefined, service: ServiceChoices): Assessed {
  const point = POINT.filter(list, filter);
  // The emulator's filter names are the CLI's own: the record's field names.
  const e = filter;
  if (!target || 'skipped' in target) return finding(point, e, target?.skipped ?? 'not probed', 'skipped');
  const t = 'honoured' in target ? target.honoured : 'ignored' in target ? 'ignored' : 'unclear';
  // Whatever the service does, the CLI also filters the records on their own fields
  // (src/lib/client/filters.ts), so a name it ignores costs bandwidth, not correctness.
  if ('ignored' in target) {
    return finding(point, e, t, 'handled', `no name tried was honoured (${target.ignored.join(', ')}): filtered on the CLI's side only`);
  }
  if ('unclear' in target) return finding(point, e, t, 'handled', `could not tell (${target.unclear}): filtered on the CLI's side too`);
  const names = (service.filterNames?.[list] ?? {}) as Record<string, string | undefined>;
  const sent = names[filter] ?? filter;
  if (target.honoured === sent) {
    if (target.honoured === e) return finding(point, e, t, 'same');
    return finding(point, e, t, 'handled', `the profile sends it as ${sent}`);
  }
  return finding(
    point,
    e,
    t,
    'needs-setting',
    `--save stores ${target.honoured} (till then the CLI filters on its side too)`,
    { kind: 'filterName', list, filter, name: target.honoured },
  );
}

export function assessError(which: ErrorCase, target: ErrorObs | undefined): Assessed {
  const point = POINT.error(which);
  const e = `${which} ${EMULATOR.errorCodes[which]}`;
  if (!target || 'skipped' in target) return finding(point, e, target?.skipped ?? 'not probed', 'skipped');
  const t = 'accepted' in target ? `accepted (${target.accepted})` : `${target.status} ${target.enveloped ? (target.code ?? '—') : 'no envelope'}`;
  if (e === t) return finding(point, e, t, 'same');
  if ('accepted' in target) {
    if (which === '400') return finding(point, e, t, 'handled', 'the CLI refuses both amounts itself, before sending');
    if (which === '401') return finding(point, e, t, 'unsupported', 'a wrong API key was accepted: is this the partner API?');
    return finding(point, e, t, 'unsupported', `the CLI expects ${which} here (exit ${which === '404' ? 4 : 5}); the call succeeded instead`);
  }
  // Exit codes come from the HTTP status alone (src/lib/errors.ts), so a 404 or a 409
  // under another status would be reported as something else.
  if ((which === '404' || which === '409') && target.status !== Number(which)) {
    return finding(point, e, t, 'unsupported', `the CLI reads ${which} by its status (exit ${which === '404' ? 4 : 5}); ${target.status} maps to another exit code`);
  }
  const parts = ['the CLI maps exit codes by HTTP status'];
  if (!target.enveloped) parts.push('and names the status when the body is not the envelope');
  return finding(point, e, t, 'handled', parts.join(' '));
}

export function assessRequestId(target: string[]): Assessed {
  const e = EMULATOR.requestIdHeader;
  const t = target.length ? target.join(', ') : 'none';
  if (e === t) return finding(POINT.requestId, e, t, 'same');
  return finding(
    POINT.requestId,
    e,
    t,
    'handled',
    target.length ? 'the CLI reads the request id from any of the common headers' : 'errors will carry no request id',
  );
}

type OpenField = keyof typeof EMULATOR.values;

function unknownValues(field: OpenField, target: { seen: string[] }): string[] {
  const known: readonly string[] = EMULATOR.values[field];
  return target.seen.filter((v) => !known.includes(v));
}

export function assessValues(field: OpenField, target: ValuesObs): Assessed {
  const point = POINT.values(field);
  const e = EMULATOR.values[field].join(', ');
  if ('skipped' in target) return finding(point, e, target.skipped, 'skipped');
  if (target.seen.length === 0) return finding(point, e, 'none seen', 'skipped', 'no value to look at');
  const t = target.seen.join(', ');
  // Subset, not equality: a value the probes did not happen to meet (a refund) is no
  // difference in what the service chose.
  const unknown = unknownValues(field, target);
  if (unknown.length === 0) return finding(point, e, t, 'same');
  return finding(point, e, t, 'handled', `${unknown.join(', ')}: shown as the service sends it`);
}

/** Unknown delivery statuses that read as a failed delivery. */
const FAILURE_WORD = /fail|error|dead|undeliver/i;

export function assessDeliveryStatus(target: ValuesObs, service: ServiceChoices): Assessed {
  const base = assessValues('delivery_status', target);
  if ('skipped' in target || base.verdict === 'same' || base.verdict === 'skipped') return base;
  const failed = service.failedStatus ?? DEFAULT_FAILED_STATUS;
  if (target.seen.includes(failed)) {
    return { ...base, action: `${base.action}; \`webhooks replay --failed\` looks for ${failed}, which the service uses` };
  }
  const candidate = unknownValues('delivery_status', target).find((v) => FAILURE_WORD.test(v));
  if (candidate) {
    return finding(
      base.point,
      base.emulator,
      base.observed,
      'needs-setting',
      `\`webhooks replay --failed\` looks for ${failed}, never seen; --save stores ${candidate} as the failed status`,
      { kind: 'failedStatus', value: candidate },
    );
  }
  return { ...base, action: `${base.action}; no failed delivery seen, \`--failed\` keeps looking for ${failed}` };
}

/** Unknown delivery statuses that read as an accepted delivery (and not as a failed one). */
const DELIVERED_WORD = /succe|deliver|^sent$|^ok$|^ack/i;

/**
 * The word for a delivered event: what `reconcile` needs to tell a delivered event from
 * one to replay. A word it does not know there is reported, never guessed at.
 */
export function assessDeliveredStatus(target: ValuesObs, service: ServiceChoices): Assessed {
  const point = POINT.delivered;
  const delivered = service.deliveredStatus ?? DEFAULT_DELIVERED_STATUS;
  // The CLI's default word is the emulator's.
  const e = DEFAULT_DELIVERED_STATUS;
  if ('skipped' in target) return finding(point, e, target.skipped, 'skipped');
  if (target.seen.includes(delivered)) {
    return finding(point, e, delivered, delivered === e ? 'same' : 'handled', delivered === e ? undefined : 'the profile names it');
  }
  const candidate = unknownValues('delivery_status', target).find((v) => DELIVERED_WORD.test(v) && !FAILURE_WORD.test(v));
  if (!candidate) return finding(point, e, 'not seen', 'skipped', 'no delivered event seen');
  return finding(
    point,
    e,
    candidate,
    'needs-setting',
    `\`reconcile\` looks for ${delivered}, never seen; --save stores ${candidate} as the delivered status`,
    { kind: 'deliveredStatus', value: candidate },
  );
}

export function retryAfterForm(value: string): string {
  if (value.trim() === '') return 'absent';
  if (/^\d+(\.\d+)?$/.test(value.trim())) return 'seconds';
  return Number.isNaN(Date.parse(value)) ? 'unreadable' : 'HTTP-date';
}

export function assessRetryAfter(target: string[]): Assessed {
  // The probes stay far below the emulator's rate limit: it answers them no 429.
  const e = 'no 429 seen';
  const t = target.length ? [...new Set(target.map(retryAfterForm))].join(', ') : e;
  if (e === t) return finding(POINT.retryAfter, e, t, 'same');
  const unreadable = target.some((v) => ['absent', 'unreadable'].includes(retryAfterForm(v)));
  return finding(
    POINT.retryAfter,
    e,
    t,
    'handled',
    unreadable ? 'without a readable Retry-After the CLI backs off on its own' : 'seconds and HTTP-dates are both honoured',
  );
}

/** The value seen most often (the scheme most stored deliveries verify with). */
export function mostCommon(values: string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

export function assessSignature(target: SignatureObs, service: ServiceChoices): Assessed {
  const point = POINT.signature;
  const e = EMULATOR.signatureScheme;
  if ('skipped' in target) return finding(point, e, target.skipped, 'skipped', 'give --store FILE (a `webhooks listen` store of its deliveries) to check it');
  const observed = mostCommon(target.schemes);
  const t = observed ?? 'none verifies';
  if (!observed) {
    return finding(
      point,
      e,
      t,
      'unsupported',
      `no scheme of the catalogue verifies the ${target.deliveries} stored deliveries with the webhook secret: check the secret, or the scheme is one the CLI does not know`,
    );
  }
  const pinned = service.signatureScheme;
  if (pinned === observed) return finding(point, e, t, observed === e ? 'same' : 'handled', observed === e ? undefined : 'the profile pins it');
  if (observed === e && !pinned) return finding(point, e, t, 'same');
  return finding(
    point,
    e,
    t,
    'needs-setting',
    `\`webhooks listen\` and \`verify\` accept it already (any scheme of the catalogue); --save pins ${observed}`,
    { kind: 'signatureScheme', value: observed },
  );
}

/** The profile's service choices with `settings` applied; every other choice kept. */
export function applySettings(service: ServiceChoices, settings: Setting[]): ServiceChoices {
  const next: ServiceChoices = structuredClone(service);
  for (const s of settings) {
    if (s.kind !== 'filterName') next[s.kind] = s.value;
    else {
      const lists = (next.filterNames ??= {}) as Record<string, Record<string, string> | undefined>;
      const names = (lists[s.list] ??= {});
      // The CLI's own name needs no entry: the profile stays as short as the service allows.
      if (s.name === s.filter) delete names[s.filter];
      else names[s.filter] = s.name;
      if (Object.keys(names).length === 0) delete lists[s.list];
    }
  }
  if (next.filterNames && Object.keys(next.filterNames).length === 0) delete next.filterNames;
  return next;
}

export function markSaved(findings: Assessed[], profileName: string): Assessed[] {
  return findings.map((f) => (f.setting && f.verdict === 'needs-setting' ? { ...f, verdict: 'saved', action: `saved in profile ${profileName}: ${describeSetting(f.setting)}` } : f));
}

export function describeSetting(s: Setting): string {
  if (s.kind === 'filterName') return `filterNames.${s.list}.${s.filter} = ${s.name}`;
  return `${s.kind} = ${s.value}`;
}

/** The findings as `--json` prints them (the setting stays internal). */
export function publicFinding({ setting: _setting, ...finding }: Assessed): Finding {
  return finding;
}

export function tally(findings: Finding[]): Record<Verdict, number> {
  const t = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const f of findings) t[f.verdict]++;
  return t;
}

/** Whether conform passes: nothing unsupported, nothing left needing a setting. */
export function passes(findings: Finding[]): boolean {
  return findings.every((f) => f.verdict !== 'unsupported' && f.verdict !== 'needs-setting');
}
