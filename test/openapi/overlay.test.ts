// What `offramp conform` observed, as an OpenAPI Overlay over docs/openapi.yaml (issue 24,
// item 6; src/lib/conform/overlay.ts). From hand-made reports: which finding becomes which
// action, and that nothing unobserved does. End to end: conform (main in process) against
// the emulator and against the variant server, each overlay applied with openapi-format,
// both results linted clean by Redocly, the two overlays differing exactly on the points
// where the variant chose differently, and each applied document holding its own
// service's answers and refusing the other's.
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Answered } from '../../src/emulator/index.js';
import { openapiDocument } from '../../src/lib/openapi/document.js';
import { jsonPath, overlayFor, type ConformRun, type Overlay, type OverlayAction } from '../../src/lib/conform/overlay.js';
import { emptyObservation, type DefaultSize, type Finding, type ListObs, type Observation } from '../../src/lib/conform/verdicts.js';
import type { CursorLocation } from '../../src/lib/client/paginate.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { documentChecker, DOCUMENT_PATH } from '../helpers/openapi.js';
import { startVariant, VARIANT } from '../helpers/variant-server.js';
import { listen, post, storedLines } from '../conform/helpers.js';
import { applyOverlay, redoclyLint } from './tools.js';

const base = openapiDocument();
const finding = (point: string, verdict = 'handled') => ({ point, emulator: '-', observed: '-', verdict: verdict as 'handled' });
/** A run of conform: what it observed, and the verdicts it came to (the overlay reads the observation, not the words). */
const run = (observed: Partial<Observation>, ...findings: ReturnType<typeof finding>[]): ConformRun => ({
  target: 'https://svc.example/api/v1/partner',
  env: 'staging',
  observed: { ...emptyObservation(), ...observed },
  findings,
});
const list = (shape: 'page-object' | 'array' | 'none', location: CursorLocation, defaultSize: DefaultSize = { count: 1, more: true }): ListObs => ({
  shape,
  location,
  mustContinue: true,
  follow: 'ok',
  defaultSize,
});
const targets = (overlay: Overlay, point: string) => overlay.actions.filter((a) => a['x-offramp-point'] === point).map((a) => `${a.remove ? 'remove' : 'update'} ${a.target}`);

describe('overlayFor', () => {
  it('turns an observed success status into that status, in place of 2XX', () => {
    const overlay = overlayFor(
      run({ calls: { create: { status: 200 }, get: { status: 200 }, simulate: { status: 200 } } }, finding('status: create'), finding('status: get', 'same'), finding('status: simulate', 'same')),
      base,
    );
    expect(targets(overlay, 'status: create')).toEqual(["update $.paths['/transactions'].post.responses", "remove $.paths['/transactions'].post.responses['2XX']"]);
    const update = overlay.actions[0]!.update as Record<string, { content: unknown; 'x-offramp-open'?: unknown }>;
    expect(update['200']!.content).toEqual(base.paths['/transactions']!.post!.responses['2XX']!['content' as never]);
    expect(update['200']!['x-offramp-open']).toBeUndefined();
    expect(targets(overlay, 'status: get')).toHaveLength(2);
    // The simulator's 200 is the spec's: seen again, nothing to say.
    expect(targets(overlay, 'status: simulate')).toEqual([]);
  });

  it('describes the list where conform found its items and cursor', () => {
    const overlay = overlayFor(
      run(
        { lists: { transactions: list('page-object', 'data'), webhooks: list('array', 'meta'), revenue: list('page-object', 'data.pagination') } },
        finding('list: transactions', 'same'),
        finding('list: webhook events'),
        finding('list: revenue'),
      ),
      base,
    );
    // The emulator's shape keeps the page object the document names.
    const tx = overlay.actions.filter((a) => a['x-offramp-point'] === 'list: transactions');
    expect(tx.map((a) => a.target)).toEqual(['$.components.schemas.TransactionListResponse.properties.data', '$.components.schemas.TransactionListResponse']);
    expect(tx[1]!.update).toEqual({ properties: { data: { $ref: '#/components/schemas/TransactionPage' } } });
    const events = overlay.actions.filter((a) => a['x-offramp-point'] === 'list: webhook events');
    expect(events.map((a) => `${a.remove ? 'remove' : 'update'} ${a.target}`)).toEqual([
      'remove $.components.schemas.WebhookEventListResponse.properties.data',
      'update $.components.schemas.WebhookEventListResponse',
      'remove $.components.schemas.WebhookEventPage',
    ]);
    expect(events[1]!.description).toBe('list: webhook events: array, cursor in meta');
    const update = events[1]!.update as { properties: Record<string, any>; required: string[] };
    expect(update.required).toEqual(['meta']);
    expect(update.properties.data).toEqual({ type: 'array', items: { $ref: '#/components/schemas/WebhookEvent' } });
    expect(Object.keys(update.properties.meta.properties)).toEqual(['next_cursor', 'nextCursor', 'next', 'has_more', 'hasMore', 'limit']);
    const revenue = overlay.actions.find((a) => a['x-offramp-point'] === 'list: revenue' && a.update) as OverlayAction & { update: any };
    expect(revenue.update.properties.data.required).toEqual(['data', 'pagination']);
  });

  it('adds the filters the service honoured under their names, and no parameter for one it ignored', () => {
    const overlay = overlayFor(
      run(
        { filters: { webhooks: { delivery_status: { honoured: 'status' } }, transactions: { status: { ignored: ['status'] } }, revenue: { network: { honoured: 'chain' } } } },
        finding('filter: webhooks delivery_status', 'needs-setting'),
        finding('filter: transactions status'),
        finding('filter: revenue network', 'saved'),
      ),
      base,
    );
    expect(overlay.actions.map((a) => a.update)).toEqual([
      { parameters: [expect.objectContaining({ name: 'status', in: 'query', required: false, schema: { type: 'string' } })] },
      { parameters: [expect.objectContaining({ name: 'chain', in: 'query' })] },
    ]);
    expect(overlay.actions.map((a) => a.target)).toEqual(["$.paths['/webhooks/events'].get", "$.paths['/revenue'].get"]);
  });

  it('gives open words, the 401 code, the Retry-After form, the page size and the signature scheme', () => {
    const overlay = overlayFor(
      run(
        {
          values: { deposit_status: { seen: ['seen', 'credited', 'null'] }, delivery_status: { seen: [] }, publish_status: { seen: [] } },
          errors: { '401': { status: 401, code: 'AUTH_INVALID', enveloped: true } },
          retryAfter: [new Date(0).toUTCString()],
          lists: { revenue: list('page-object', 'data', { stated: 30, count: 30, more: true }), transactions: list('page-object', 'data', { count: 0, more: false }) },
          signature: { schemes: ['timestamped-sha256', 'timestamped-sha256'], deliveries: 2 },
        },
        finding('values: deposit_status'),
        finding('values: publish_status', 'skipped'),
        finding('error: 401 (wrong key)'),
        finding('Retry-After'),
        finding('page size: revenue'),
        finding('page size: transactions'),
        finding('signature scheme', 'needs-setting'),
      ),
      base,
    );
    const by = Object.fromEntries(overlay.actions.map((a) => [a['x-offramp-point'], a]));
    expect(Object.keys(by)).toEqual(['page size: revenue', 'error: 401 (wrong key)', 'values: deposit_status', 'Retry-After', 'signature scheme']);
    expect(by['values: deposit_status']).toMatchObject({ target: '$.components.schemas.Transaction.properties.deposit_status', update: { examples: ['seen', 'credited'] } });
    expect(by['error: 401 (wrong key)']!.target).toBe("$.components.responses.Unauthorized.content['application/json'].schema");
    expect(by['Retry-After']!.update).toMatchObject({ schema: { pattern: expect.stringContaining('GMT$') } });
    expect(new RegExp((by['Retry-After']!.update as any).schema.pattern).test(new Date(0).toUTCString())).toBe(true);
    expect(by['page size: revenue']).toMatchObject({ target: '$.components.parameters.RevenueLimit.schema', update: { default: 30 } });
    expect(by['signature scheme']!.update).toMatchObject({ 'x-offramp-signature-scheme': 'timestamped-sha256', schema: { pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$' } });
  });

  it('carries nothing conform did not observe: skipped and unsupported points, a 401 without an envelope, an unknown scheme', () => {
    const overlay = overlayFor(
      run(
        {
          calls: { create: { skipped: 'production: read-only' }, list: { failed: { status: 409, code: 'CONFLICT', message: 'no' } } },
          lists: { transactions: list('none', 'none') },
          errors: { '401': { status: 401, code: undefined, enveloped: false } },
          signature: { schemes: [], deliveries: 2 },
          requestIdHeaders: ['x-correlation-id'],
        },
        finding('status: create', 'skipped'),
        finding('status: list', 'unsupported'),
        finding('list: transactions', 'unsupported'),
        finding('error: 401 (wrong key)'),
        finding('Retry-After', 'skipped'),
        finding('signature scheme', 'unsupported'),
        finding('request-id header'),
      ),
      base,
    );
    expect(overlay.actions).toEqual([]);
    expect(overlay).toMatchObject({ overlay: '1.0.0', info: { title: 'What https://svc.example/api/v1/partner chose where the spec is open' } });
  });

  it('follows the observation, not the words of the report: a finding observed as anything says nothing by itself', () => {
    const worded = { point: 'status: create', emulator: '201', observed: '200', verdict: 'handled' as const };
    expect(overlayFor({ ...run({}), findings: [worded] }, base).actions).toEqual([]);
    expect(overlayFor({ ...run({ calls: { create: { status: 202 } } }), findings: [worded] }, base).actions[0]!.update).toHaveProperty('202');
  });

  it('writes JSONPath that standard tools read: dots for names, quoted brackets for the rest', () => {
    expect(jsonPath(['paths', '/transactions/{id}', 'get'])).toBe("$.paths['/transactions/{id}'].get");
    expect(jsonPath(['components', 'headers', 'Retry-After'])).toBe("$.components.headers['Retry-After']");
    expect(jsonPath(['a', "it's", 'b\\c'])).toBe("$.a['it\\'s']['b\\\\c']");
  });
});

// ------------------------------------------------------------------ end to end

/** What `conform --json` prints. */
type Report = { target: string; env: string; findings: Finding[] };
type Side = { report: Report; overlay: Overlay; applied: string; answers: Answered[] };

const dir = mkdtempSync(join(tmpdir(), 'offramp-overlay-'));
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** A store of the target's deliveries (conform reads the signature scheme from it), by a real listener. */
async function storeOf(name: string, secret: string) {
  const store = join(dir, `${name}.ndjson`);
  return { store, listener: listen(store, secret) };
}

/** One transaction walked to completion and read, a 401 and a 429: the answers to hold to a document. */
async function answersOf(baseUrl: string, key: string, inject429: () => void): Promise<Answered[]> {
  const answers: Answered[] = [];
  const call = async (method: 'GET' | 'POST', route: string, path: string, opts: { body?: unknown; key?: string; idempotencyKey?: string } = {}) => {
    const headers: Record<string, string> = { 'x-api-key': opts.key ?? key, 'content-type': 'application/json' };
    if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
    const res = await fetch(baseUrl + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const body = await res.text();
    answers.push({ method, route: `${method} ${route}`, path, status: res.status, headers: Object.fromEntries(res.headers), body });
    return JSON.parse(body);
  };
  await call('POST', '/quotes', '/quotes', { body: { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '5000.00' } });
  const created = await call('POST', '/transactions', '/transactions', {
    body: { fiat_amount: '5000.00', crypto_currency: 'usdt', network: 'bep20', merchant_reference: `overlay-${Math.random().toString(36).slice(2)}` },
    idempotencyKey: `k-${Math.random()}`,
  });
  const id = created.data.id as string;
  for (const event of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) {
    await call('POST', '/sandbox/simulate', '/sandbox/simulate', { body: { transaction_id: id, event } });
  }
  await call('GET', '/transactions/:id', `/transactions/${id}`);
  await call('GET', '/transactions', '/transactions?limit=1');
  await call('GET', '/webhooks/events', '/webhooks/events?limit=1');
  const day = 86_400_000;
  const window = `from=${encodeURIComponent(new Date(Date.now() - day).toISOString())}&to=${encodeURIComponent(new Date(Date.now() + day).toISOString())}`;
  await call('GET', '/revenue', `/revenue?${window}&include_summary=true&limit=1`);
  await call('GET', '/transactions', '/transactions?limit=1', { key: 'overlay-wrong-key' });
  inject429();
  await call('GET', '/transactions', '/transactions?limit=1');
  return answers;
}

/** conform --json --overlay against the target, and its overlay applied. */
async function observe(name: string, target: { baseUrl: string; apiKey: string; secret: string; store: string; inject429: () => void }, file: string): Promise<Omit<Side, 'answers'>> {
  // One 429 during the probes, so that the form of its Retry-After is seen.
  target.inject429();
  const overlayFile = join(dir, file);
  const r = await runMain(['conform', '--store', target.store, '--json', '--overlay', overlayFile], {
    env: { OFFRAMP_BASE_URL: target.baseUrl, OFFRAMP_API_KEY: target.apiKey, OFFRAMP_WEBHOOK_SECRET: target.secret },
  });
  expect(r.stdout, r.stderr).not.toBe('');
  const report = JSON.parse(r.stdout) as Report;
  const overlay = (file.endsWith('.json') ? JSON.parse(readFileSync(overlayFile, 'utf8')) : parse(readFileSync(overlayFile, 'utf8'))) as Overlay;
  const applied = join(dir, `${name}.openapi.yaml`);
  await applyOverlay(DOCUMENT_PATH.pathname, overlayFile, applied);
  return { report, overlay, applied };
}

let emu: Side;
let variant: Side;

beforeAll(async () => {
  const secret = 'whsec_overlay_e2e_51b0';
  // Both listeners start at once: each is a process of its own.
  const emuStore = await storeOf('emulator', secret);
  const varStore = await storeOf('variant', VARIANT_SECRET);
  const e = await emulatorFor({ webhookUrl: await emuStore.listener.url, webhookSecret: secret });
  closers.push(e.close);
  const v = await startVariant({ webhookUrl: await varStore.listener.url, webhookSecret: VARIANT_SECRET });
  closers.push(v.close);
  // Deliveries of each target's own, for its store: one transaction, detected.
  for (const [url, key] of [[e.emulator.url, TEST_KEY], [v.baseUrl, v.apiKey]] as const) {
    const tx = await post(url, key, '/transactions', { fiat_amount: '5000.00', crypto_currency: 'usdt', network: 'bep20', merchant_reference: `overlay-store-${url.length}-${key}` }, `k-store-${key}`);
    await post(url, key, '/sandbox/simulate', { transaction_id: tx.id, event: 'deposit.detected' });
  }
  await storedLines(emuStore.store, 2);
  await storedLines(varStore.store, 2);
  await emuStore.listener.stop();
  await varStore.listener.stop();

  const emu429 = () => void e.emulator.addFault({ route: 'GET /transactions', next: 1, status: 429 });
  const var429 = () => void v.emu.addFault({ route: 'GET /transactions', next: 1, status: 429 });
  const [emuSide, varSide] = await Promise.all([
    observe('emulator', { baseUrl: e.emulator.url, apiKey: TEST_KEY, secret, store: emuStore.store, inject429: emu429 }, 'emulator.overlay.yaml'),
    observe('variant', { baseUrl: v.baseUrl, apiKey: v.apiKey, secret: VARIANT_SECRET, store: varStore.store, inject429: var429 }, 'variant.overlay.json'),
  ]);
  emu = { ...emuSide, answers: await answersOf(e.emulator.url, TEST_KEY, emu429) };
  variant = { ...varSide, answers: await answersOf(v.baseUrl, v.apiKey, var429) };
}, 120_000);

const VARIANT_SECRET = 'whsec_variant_overlay';

/** The points the overlay carries (src/lib/conform/overlay.ts). */
const CARRIED = /^(status|list|page size|filter|values): |^error: 401 |^Retry-After$|^signature scheme$/;

describe('conform --overlay against the emulator and the variant', { timeout: 60_000 }, () => {
  it('applied with openapi-format, each gives a document Redocly lints clean', async () => {
    const result = await redoclyLint([emu.applied, variant.applied]);
    expect(result.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(result.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('the two overlays differ exactly on the points where the variant chose differently', () => {
    const actionsAt = (overlay: Overlay, point: string) => overlay.actions.filter((a) => a['x-offramp-point'] === point).map(({ description: _d, ...a }) => a);
    const observed = (side: Side) => new Map(side.report.findings.map((f) => [f.point, f.observed]));
    const emuSeen = observed(emu);
    const varSeen = observed(variant);
    const differing: string[] = [];
    for (const [point, seen] of emuSeen) {
      if (!CARRIED.test(point)) {
        // Not carried: no action, whatever was seen.
        expect(actionsAt(emu.overlay, point), point).toEqual([]);
        expect(actionsAt(variant.overlay, point), point).toEqual([]);
        continue;
      }
      const same = seen === varSeen.get(point);
      if (!same) differing.push(point);
      expect(JSON.stringify(actionsAt(emu.overlay, point)) === JSON.stringify(actionsAt(variant.overlay, point)), `${point}: ${seen} / ${varSeen.get(point)}`).toBe(same);
      if (!same) expect(actionsAt(variant.overlay, point).length, point).toBeGreaterThan(0);
    }
    const filters = Object.entries(VARIANT.filterNames).flatMap(([list, names]) => Object.keys(names).map((f) => `filter: ${list} ${f}`));
    expect(differing.sort()).toEqual(
      [
        'status: quote',
        'status: create',
        'list: transactions',
        'list: webhook events',
        'list: revenue',
        'page size: transactions',
        'page size: webhook events',
        'page size: revenue',
        ...filters,
        'error: 401 (wrong key)',
        'values: deposit_status',
        'values: delivery_status',
        'values: publish_status',
        'Retry-After',
        'signature scheme',
      ].sort(),
    );
    const by = (point: string) => variant.overlay.actions.find((a) => a['x-offramp-point'] === point && a.update);
    expect(by('signature scheme')!.update).toMatchObject({ 'x-offramp-signature-scheme': VARIANT.signatureScheme });
    expect(by('error: 401 (wrong key)')!.update).toEqual({ properties: { error: { properties: { code: { examples: [VARIANT.unauthorizedCode] } } } } });
    expect(by('filter: transactions status')!.update).toMatchObject({ parameters: [{ name: 'state' }] });
    expect(emu.overlay['x-offramp-conform']).toMatchObject({ env: 'unknown' });
  });

  it('each applied document holds its own service to its choices, and not the other', () => {
    const checkEmu = documentChecker(parse(readFileSync(emu.applied, 'utf8')));
    const checkVariant = documentChecker(parse(readFileSync(variant.applied, 'utf8')));
    expect(emu.answers.flatMap(checkEmu)).toEqual([]);
    expect(variant.answers.flatMap(checkVariant)).toEqual([]);
    const applied = parse(readFileSync(variant.applied, 'utf8'));
    expect(Object.keys(applied.paths['/transactions'].post.responses)).not.toContain('2XX');
    expect(applied.paths['/transactions'].post.responses['200']).toBeDefined();
    expect(applied.components.headers['Retry-After'].schema.pattern).toMatch(/GMT\$$/);
    // The variant answers 200 to a create, a Retry-After date and lists without a page
    // object: the emulator's document refuses each, and the other way round.
    const wrong = variant.answers.flatMap(checkEmu);
    // (An undeclared status falls to `default`, the error envelope, which a success is not.)
    expect(wrong).toEqual(expect.arrayContaining([expect.stringMatching(/^POST \/transactions → 200: body must have required property 'error'/), expect.stringMatching(/→ 429: header Retry-After must match pattern/), expect.stringMatching(/^GET \/revenue\S* → 200: body\/data must be object/)]));
    expect(emu.answers.flatMap(checkVariant)).toEqual(expect.arrayContaining([expect.stringMatching(/^POST \/transactions → 201: body must have required property 'error'/)]));
  });
});
