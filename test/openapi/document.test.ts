// The OpenAPI document (issue 24, items 1-3): docs/openapi.yaml is what the code generates
// (a stale file fails here: regenerate with `npm run openapi`), `offramp openapi` prints it
// (YAML, or JSON with --json), it describes every route of the emulator with the spec's
// rules, and every open point of docs/api.md is marked where the document stays open.
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../../src/commands/openapi.js';
import { DEFAULT_CLI_PORT } from '../../src/emulator/index.js';
import { ROUTES } from '../../src/emulator/routes.js';
import type { Context } from '../../src/lib/context.js';
import { IO } from '../../src/lib/io.js';
import { OPERATIONS, openapiDocument } from '../../src/lib/openapi/document.js';
import { toYaml } from '../../src/lib/openapi/render.js';
import { EVENT_TYPES, SIMULATOR_EVENTS, TRANSACTION_STATUSES } from '../../src/lib/vocabulary.js';
import { DOCUMENT_PATH } from '../helpers/openapi.js';

const committed = readFileSync(DOCUMENT_PATH, 'utf8');
const doc = parse(committed);

/** `offramp openapi`'s run, in process: what it prints. */
async function printed(json: boolean): Promise<string> {
  const stdout = new PassThrough();
  let out = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const io = new IO({ stdin: new PassThrough(), stdout, stderr: new PassThrough(), env: {} });
  await run({}, { io, globals: { json } } as unknown as Context);
  return out;
}

/** Every `x-offramp-open` point of the document, wherever it is. */
function openPoints(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => openPoints(n, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'x-offramp-open') for (const p of [value].flat() as { point: string }[]) found.add(p.point);
      else openPoints(value, found);
    }
  }
  return found;
}

describe('docs/openapi.yaml', () => {
  it('is what the code generates, byte for byte (regenerate: npm run openapi)', () => {
    expect(committed).toBe(toYaml(openapiDocument()));
  });

  it("describes every route of the emulator's table, and nothing else, in the table's order", () => {
    expect(Object.keys(OPERATIONS)).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`));
  });

  it('comes out the same on every build: keys in a fixed order', () => {
    expect(toYaml(openapiDocument())).toBe(toYaml(openapiDocument()));
    expect(Object.keys(doc)).toEqual(['openapi', 'info', 'servers', 'security', 'tags', 'paths', 'webhooks', 'components', 'x-offramp-open']);
  });

  it('is what `offramp openapi` prints, and the same document as JSON with --json', async () => {
    expect(await printed(false)).toBe(committed);
    const json = await printed(true);
    expect(json.endsWith('}\n')).toBe(true);
    expect(JSON.parse(json)).toEqual(doc);
  });

  it('describes every route of the emulator, once, as OpenAPI 3.1 with the emulator as its server', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`).sort());
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'http://127.0.0.1:{port}/api/v1/partner' })]);
    expect(doc.servers[0].variables.port.default).toBe(String(DEFAULT_CLI_PORT));
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-KEY' });
    expect(doc.security).toEqual([{ ApiKey: [] }]);
  });

  it("states the spec's rules: statuses, events, limits, decimals, idempotency, windows", () => {
    const { schemas, parameters } = doc.components;
    expect(schemas.Transaction.properties.status.enum).toEqual([...TRANSACTION_STATUSES]);
    expect(schemas.Transaction.properties.status.enum).toHaveLength(10);
    expect(schemas.SimulateRequest.properties.event.enum).toEqual([...SIMULATOR_EVENTS]);
    expect(schemas.SimulateRequest.properties.event.enum).toHaveLength(7);
    expect(schemas.WebhookEvent.properties.event_type.enum).toEqual([...EVENT_TYPES]);
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES]);
    for (const name of ['TransactionsLimit', 'WebhookEventsLimit', 'RevenueLimit']) {
      expect(parameters[name]).toMatchObject({ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } });
    }
    // Decimals are strings, never numbers, wherever money goes.
    for (const [schema, field] of [['Transaction', 'amount'], ['Transaction', 'rate'], ['Quote', 'adjusted_rate'], ['RevenueRow', 'share'], ['CreateTransactionRequest', 'fiat_amount']]) {
      expect(schemas[schema!].properties[field!], `${schema}.${field}`).toMatchObject({ type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' });
    }
    // Required fields as the spec lists them.
    expect(schemas.Transaction.required).toEqual(['id', 'deposit_address', 'network', 'expires_at', 'status', 'rate', 'amount', 'crypto_amount', 'crypto_currency', 'deposit_status', 'created_at', 'updated_at']);
    expect(schemas.SimulateRequest.required).toEqual(['transaction_id', 'event']);
    expect(schemas.ErrorEnvelope.properties.error.required).toEqual(['code', 'message', 'timestamp']);
    // Idempotency-Key on create and cancel, nowhere else.
    const idempotent = Object.entries(doc.paths as Record<string, Record<string, { parameters?: { $ref?: string }[] }>>).flatMap(([path, item]) =>
      Object.entries(item).filter(([, op]) => op.parameters?.some((p) => p.$ref === '#/components/parameters/IdempotencyKey')).map(([m]) => `${m} ${path}`),
    );
    expect(idempotent).toEqual(['post /transactions', 'post /transactions/{id}/cancel']);
    expect(parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: true });
    expect(doc.paths['/revenue'].get.description).toMatch(/at most 90 days apart/);
    expect(doc.paths['/quotes'].post.description).toMatch(/valid 120 seconds/);
    // The simulator's 200 is the spec's; every other success status is open.
    expect(Object.keys(doc.paths['/sandbox/simulate'].post.responses)).toEqual(['200', '400', '401', '403', '404', '409', '429', '500', 'default']);
    expect(doc.paths['/transactions'].post.responses['2XX']['x-offramp-open'].point).toBe('success status');
    expect(doc.components.responses.RateLimited.headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(doc.webhooks['deposit.detected'].post.parameters).toEqual([{ $ref: '#/components/parameters/WebhookSignature' }]);
    expect(parameters.WebhookSignature).toMatchObject({ name: 'X-SVC-Webhook-Signature', in: 'header', required: true });
  });

  it("marks every open point of docs/api.md's table, where the document stays open", () => {
    const apiMd = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const table = apiMd.slice(apiMd.indexOf('## Open points'), apiMd.indexOf('\n## ', apiMd.indexOf('## Open points') + 1));
    const rows = table
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| point') && !l.startsWith('|---'))
      .map((l) => l.split('|')[1]!.trim().replace(/`/g, ''));
    expect(rows.length).toBeGreaterThanOrEqual(15);
    expect([...openPoints(doc)]).toEqual(expect.arrayContaining(rows));
    // Open words stay plain strings: no enum pretends to know them.
    for (const [schema, field] of [['Transaction', 'deposit_status'], ['WebhookEvent', 'delivery_status'], ['ReplayResult', 'publish_status']]) {
      const property = doc.components.schemas[schema!].properties[field!];
      expect(property.enum).toBeUndefined();
      expect(property['x-offramp-open'].point).toBe('deposit_status, delivery_status, publish_status values');
    }
    // The list shape is open, within the spec's wrapper: a page object in data, anything beside.
    expect(doc.components.schemas.TransactionListResponse['x-offramp-open'].point).toBe('list shape');
    expect(doc.components.schemas.TransactionListResponse.additionalProperties).toEqual({});
  });
});
