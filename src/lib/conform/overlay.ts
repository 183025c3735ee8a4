// `offramp conform --overlay FILE` (docs/api.md, "OpenAPI"): the choices a service was
// observed to make on the spec's open points, as an OpenAPI Overlay 1.0 over document.ts.
//
// Made from what the probes observed (the structured observation, not the report's words),
// and only where conform's finding says the service did it; each action names its point in
// `x-offramp-point`. Not carried: the request-id header (no single place in the document),
// the 400/404/409 codes (the spec fixes them) and the delivered word (already among the
// delivery_status examples).
import { access, constants } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import { writeAside } from '../fs/atomic.js';
import { CURSOR_KEYS, HAS_MORE_KEYS, type CursorLocation } from '../client/paginate.js';
import { FILTERS, type FilteredList } from '../config/profile.js';
import { CALL_OPERATIONS, CALLS, describeList, mostCommon, POINT, retryAfterForm, type Finding, type Observation } from './verdicts.js';
import { UsageError } from '../errors.js';
import { FILTER_PROBES } from './probes.js';
import { FORMS, SCHEMES, type SchemeName } from '../webhooks/signature.js';
import { API_VERSION, openapiDocument, openapiPath, type OpenApiDocument } from '../openapi/document.js';
import { toJson, toYaml } from '../openapi/render.js';
import { schemaRef, type JsonSchema } from '../openapi/schemas.js';

/** What a conform run saw (its probes' observation) and made of it (its findings). */
export type ConformRun = { target: string; env: string; observed: Observation; findings: Finding[] };

export type OverlayAction = {
  target: string;
  description: string;
  update?: unknown;
  remove?: true;
  /** The conform finding this action comes from. */
  'x-offramp-point': string;
};

export type Overlay = ReturnType<typeof overlayFor>;

/** Each list's place in the document. */
const LISTS: Record<FilteredList, { path: string; response: string; page: string; item: string; limit: string }> = {
  transactions: { path: '/transactions', response: 'TransactionListResponse', page: 'TransactionPage', item: 'Transaction', limit: 'TransactionsLimit' },
  webhooks: { path: '/webhooks/events', response: 'WebhookEventListResponse', page: 'WebhookEventPage', item: 'WebhookEvent', limit: 'WebhookEventsLimit' },
  revenue: { path: '/revenue', response: 'RevenueListResponse', page: 'RevenuePage', item: 'RevenueRow', limit: 'RevenueLimit' },
};

/** The component schema each open word is a property of. */
const VALUE_COMPONENT = { deposit_status: 'Transaction', delivery_status: 'WebhookEvent', publish_status: 'ReplayResult' } as const;

const RETRY_AFTER_FORM: Record<string, JsonSchema> = {
  seconds: { pattern: '^\\d+$', description: 'Whole seconds to wait.' },
  'HTTP-date': {
    pattern: '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d{2}:\\d{2}:\\d{2} GMT$',
    description: 'The time to retry at, as an HTTP-date (IMF-fixdate).',
  },
};

/** Verdicts whose `observed` is something the service did. */
const OBSERVED = new Set(['same', 'handled', 'needs-setting', 'saved']);

/** The overlay of one conform run over `base` (openapiDocument()): what it observed, where its finding says the service did it. */
export function overlayFor(run: ConformRun, base: OpenApiDocument) {
  const { observed } = run;
  const actions: OverlayAction[] = [];
  const add = (point: string, description: string, path: string[], change: Change) => {
    if (resolve(base, path) === undefined) throw new Error(`overlay: ${jsonPath(path)} is not in the document`);
    actions.push({ target: jsonPath(path), description: `${point}: ${description}`, ...change, 'x-offramp-point': point });
  };
  const seen = new Set(run.findings.filter((f) => OBSERVED.has(f.verdict)).map((f) => f.point));

  for (const call of CALLS) {
    const point = POINT.status(call);
    const o = observed.calls[call];
    if (!seen.has(point) || !o || !('status' in o)) continue;
    const status = String(o.status);
    const [path, method] = CALL_OPERATIONS[call];
    const responses = ['paths', openapiPath(path), method, 'responses'];
    const current = resolve(base, responses) as Record<string, JsonSchema>;
    if (status in current) continue;
    const open = current['2XX'];
    const model = open ?? Object.entries(current).find(([code]) => /^2\d\d$/.test(code))?.[1];
    if (!model) continue;
    const { 'x-offramp-open': _open, ...response } = model;
    add(point, `answers ${status}`, responses, { update: { [status]: response } });
    if (open) add(point, `answers ${status}, not any 2xx`, [...responses, '2XX'], { remove: true });
  }

  for (const list of Object.keys(LISTS) as FilteredList[]) {
    const o = observed.lists[list];
    if (o && !('skipped' in o)) {
      if (seen.has(POINT.list(list))) listActions(list, o, (description, path, change) => add(POINT.list(list), description, path, change));
      const size = o.defaultSize.stated ?? (o.defaultSize.more ? o.defaultSize.count : undefined);
      if (seen.has(POINT.pageSize(list)) && size !== undefined) {
        add(POINT.pageSize(list), `${size} items when no limit is sent`, ['components', 'parameters', LISTS[list].limit, 'schema'], { update: { default: size } });
      }
    }
    for (const filter of FILTERS[list]) {
      const point = POINT.filter(list, filter);
      const f = observed.filters[list]?.[filter];
      if (!seen.has(point) || !f || !('honoured' in f)) continue;
      const name = f.honoured;
      const { description, schema } = (FILTER_PROBES[list] as Record<string, { description: string; schema: JsonSchema }>)[filter]!;
      const parameter = { name, in: 'query', required: false, description: `${description} Honoured under this name (offramp conform).`, schema };
      add(point, `honoured as ${name}`, ['paths', LISTS[list].path, 'get'], { update: { parameters: [parameter] } });
    }
  }

  const unauthorized = observed.errors['401'];
  if (seen.has(POINT.error('401')) && unauthorized && 'code' in unauthorized && unauthorized.status === 401 && unauthorized.enveloped && unauthorized.code) {
    const schema = ['components', 'responses', 'Unauthorized', 'content', 'application/json', 'schema'];
    add(POINT.error('401'), `code ${unauthorized.code}`, schema, { update: { properties: { error: { properties: { code: { examples: [unauthorized.code] } } } } } });
  }

  for (const [field, component] of Object.entries(VALUE_COMPONENT) as [keyof typeof VALUE_COMPONENT, string][]) {
    const point = POINT.values(field);
    const o = observed.values[field];
    const values = 'seen' in o ? o.seen.filter((v) => v !== 'null') : [];
    if (!seen.has(point) || values.length === 0) continue;
    add(point, `seen ${values.join(', ')}`, ['components', 'schemas', component, 'properties', field], { update: { examples: values } });
  }

  // One form throughout, or nothing to say about it.
  const forms = [...new Set(observed.retryAfter.map(retryAfterForm))];
  const header = ['components', 'headers', 'Retry-After'];
  if (seen.has(POINT.retryAfter) && forms.length === 1) {
    const form = forms[0]!;
    if (form === 'absent') add(POINT.retryAfter, 'a 429 came without it', header, { update: { required: false } });
    else if (RETRY_AFTER_FORM[form]) {
      const { description, ...schema } = RETRY_AFTER_FORM[form]!;
      add(POINT.retryAfter, form, header, { update: { description, schema } });
    }
  }

  const scheme = 'schemes' in observed.signature ? mostCommon(observed.signature.schemes) : undefined;
  if (seen.has(POINT.signature) && scheme && (SCHEMES as readonly string[]).includes(scheme)) {
    const form = FORMS[scheme as SchemeName];
    add(POINT.signature, scheme, ['components', 'parameters', 'WebhookSignature'], {
      update: {
        description: `The signature of the raw body, keyed with the webhook secret: ${form.computation} (${scheme}, as offramp conform found it).`,
        schema: { pattern: form.pattern },
        'x-offramp-signature-scheme': scheme,
      },
    });
  }

  return {
    overlay: '1.0.0' as const,
    info: {
      title: `What ${run.target} chose where the spec is open`,
      version: API_VERSION,
      description: 'Written by offramp conform --overlay from what the service was observed to do; apply it to the offramp OpenAPI document (docs/openapi.yaml, or `offramp openapi`).',
    },
    actions,
    'x-offramp-conform': { target: run.target, env: run.env },
  };
}

type Change = { update: unknown } | { remove: true };

/** The list answer's schema for the shape and cursor location conform saw. */
function listActions(list: FilteredList, o: { shape: 'page-object' | 'array' | 'none'; location: CursorLocation }, add: (description: string, path: string[], change: Change) => void): void {
  const { shape, location } = o;
  if (shape === 'none' || location === 'none') return;
  const observed = describeList(o);
  const { response, page, item } = LISTS[list];
  const schema = ['components', 'schemas', response];
  const items = { type: 'array', items: schemaRef(item) };
  const wrapper: JsonSchema & { properties: Record<string, unknown>; required: string[] } = { properties: {}, required: [] };
  // A page object holding its own cursor is the spec's page (its Revenue page: data,
  // has_more, limit, next_cursor), the one the document names; any other place for the
  // cursor gets an object that may hold it under any key the CLI reads.
  const keepsPage = shape === 'page-object' && location === 'data';
  let data: JsonSchema;
  if (shape === 'array') data = items;
  else if (keepsPage) data = schemaRef(page);
  else {
    const key = location === 'data.meta' || location === 'data.pagination' ? location.slice('data.'.length) : undefined;
    data = { type: 'object', required: key ? ['data', key] : ['data'], properties: { data: items, ...(key ? { [key]: cursorHolder() } : {}) } };
  }
  if (location === 'wrapper') {
    const holder = cursorHolder();
    Object.assign(wrapper.properties, holder.properties);
    wrapper.anyOf = holder.anyOf;
  }
  if (location === 'meta' || location === 'pagination') {
    wrapper.properties[location] = cursorHolder();
    wrapper.required.push(location);
  }
  // The items in data leave the revenue summary beside them (where the CLI looks for it too).
  if (list === 'revenue' && shape === 'array') wrapper.properties.summary = schemaRef('RevenueSummary');
  wrapper.properties.data = data;
  if (wrapper.required.length === 0) delete (wrapper as JsonSchema).required;
  add(`${observed}: the answer's data is replaced`, [...schema, 'properties', 'data'], { remove: true });
  add(observed, schema, { update: wrapper });
  // Nothing else refers to it: a service without it has no use for it.
  if (!keepsPage) add(`${observed}: no ${page}`, ['components', 'schemas', page], { remove: true });
}

/**
 * The object holding the cursor: conform saw where, not under which key, so any key the
 * CLI reads (src/lib/client/paginate.ts) may hold it, and one of them must.
 */
function cursorHolder(): JsonSchema & { properties: Record<string, JsonSchema> } {
  const cursor = { type: ['string', 'null'], description: 'Opaque: pass it back unchanged as cursor; null or absent on the last page.' };
  const more = { type: 'boolean' };
  const properties: Record<string, JsonSchema> = {
    ...Object.fromEntries(CURSOR_KEYS.map((k) => [k, cursor])),
    ...Object.fromEntries(HAS_MORE_KEYS.map((k) => [k, more])),
    limit: { type: 'integer', description: 'The page size used.' },
  };
  return {
    type: 'object',
    description: `Where offramp conform found the cursor: ${CURSOR_KEYS.join(', ')} and ${HAS_MORE_KEYS.join(', ')} are read there.`,
    properties,
    anyOf: [...CURSOR_KEYS, ...HAS_MORE_KEYS].map((k) => ({ required: [k], properties: { [k]: properties[k] } })),
  };
}

/** `$.paths['/quotes'].post`: names that are identifiers after a dot, the rest quoted. */
export function jsonPath(path: string[]): string {
  return `$${path.map((p) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? `.${p}` : `['${p.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`)).join('')}`;
}

function resolve(doc: unknown, path: string[]): unknown {
  return path.reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), doc);
}

/** Refuses, before any probe, a file the overlay could not be written to. */
export async function checkOverlayPath(path: string): Promise<void> {
  if (path.trim() === '') throw new UsageError('--overlay: give a file name');
  try {
    await access(dirname(resolvePath(path)), constants.W_OK);
  } catch {
    throw new UsageError(`--overlay ${path}: its directory does not exist or cannot be written`);
  }
}

/** Writes the overlay of `run`: JSON for a `.json` file, YAML otherwise; answers its number of actions. */
export async function writeOverlay(path: string, run: ConformRun): Promise<number> {
  const overlay = overlayFor(run, openapiDocument());
  await writeAside(path, /\.json$/i.test(path) ? toJson(overlay) : toYaml(overlay), 0o644);
  return overlay.actions.length;
}
