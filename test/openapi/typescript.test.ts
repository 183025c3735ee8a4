// Useful to a partner (issue 24, item 5): TypeScript types generated from docs/openapi.yaml
// with openapi-typescript type-check a small client that then runs against the emulator,
// and a client that breaks the spec's rules (a number for an amount, both amounts, an
// unknown simulator event, a missing merchant_reference) does not compile. The generation
// and each type check run once.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor } from '../helpers/emulator.js';
import { DOCUMENT_PATH } from '../helpers/openapi.js';
import { generateTypes, typeCheck } from './tools.js';

const ROOT = new URL('../../', import.meta.url).pathname;

const CLIENT = `// A partner's client, typed by the generated paths and components.
import { randomUUID } from 'node:crypto';
import type { components, paths } from './offramp-api.js';

type Schemas = components['schemas'];
type CreateBody = paths['/transactions']['post']['requestBody']['content']['application/json'];
type Created = paths['/transactions']['post']['responses']['2XX']['content']['application/json'];
type Snapshot = paths['/transactions/{id}']['get']['responses']['2XX']['content']['application/json'];

const [base, key] = process.argv.slice(2) as [string, string];

async function call<T>(method: 'GET' | 'POST', path: string, body?: object, idempotencyKey?: string): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { 'x-api-key': key, 'content-type': 'application/json' };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as T };
}

const quoteBody: Schemas['QuoteRequest'] = { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '5000.00' };
const quote = await call<Schemas['QuoteResponse']>('POST', '/quotes', quoteBody);
const create: CreateBody = { quote_id: quote.body.data.quote_id, network: 'bep20', merchant_reference: 'typed-' + randomUUID() };
const created = await call<Created>('POST', '/transactions', create, randomUUID());
const simulate: Schemas['SimulateRequest'] = { transaction_id: created.body.data.id, event: 'deposit.detected' };
await call<Schemas['TransactionResponse']>('POST', '/sandbox/simulate', simulate);
const read = await call<Snapshot>('GET', '/transactions/' + created.body.data.id);
const status: Schemas['Transaction']['status'] = read.body.data.status;
const missing = await call<Schemas['ErrorEnvelope']>('GET', '/transactions/' + randomUUID());
console.log(JSON.stringify({
  quote: quote.status,
  created: created.status,
  amount: created.body.data.amount,
  sameAmount: created.body.data.amount === read.body.data.amount,
  status,
  deposit: read.body.data.deposit_status,
  missing: [missing.status, missing.body.error.code],
}));
`;

const BAD = `import type { components } from './offramp-api.js';
type Schemas = components['schemas'];
export const amountAsNumber: Schemas['QuoteRequest'] = { crypto_currency: 'usdt', network: 'bep20', fiat_amount: 5000 };
export const bothAmounts: Schemas['QuoteRequest'] = { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '1', crypto_amount: '1' };
export const unknownEvent: Schemas['SimulateRequest'] = { transaction_id: 'x', event: 'deposit.lost' };
export const noReference: Schemas['CreateTransactionRequest'] = { fiat_amount: '1', crypto_currency: 'usdt', network: 'bep20' };
export const bothModes: Schemas['CreateTransactionRequest'] = { quote_id: 'q', fiat_amount: '1', crypto_currency: 'usdt', network: 'bep20', merchant_reference: 'r' };
export const unknownStatus: Schemas['Transaction']['status'] = 'done';
`;

/** A project of its own: strict, ESM, Node's types from the repository. */
function project(dir: string, file: string): string {
  const config = join(dir, `tsconfig.${file}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023'],
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
        outDir: join(dir, 'out'),
        rootDir: dir,
        skipLibCheck: true,
      },
      files: [join(dir, `${file}.ts`), join(dir, 'offramp-api.d.ts')],
    }),
  );
  return config;
}

let dir: string;
let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'offramp-typed-client-'));
  mkdirSync(join(dir, 'out'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'out', 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'client.ts'), CLIENT);
  writeFileSync(join(dir, 'bad.ts'), BAD);
  await generateTypes(DOCUMENT_PATH.pathname, join(dir, 'offramp-api.d.ts'));
  emu = await emulatorFor();
}, 60_000);
afterAll(() => emu?.close());

describe('a TypeScript client generated from the document', { timeout: 60_000 }, () => {
  it('type-checks, and runs against the emulator', async () => {
    const checked = await typeCheck(project(dir, 'client'));
    expect(checked.output).toBe('');
    expect(checked.code).toBe(0);
    const run = await promisify(execFile)(process.execPath, [join(dir, 'out', 'client.js'), emu.emulator.url, emu.env.OFFRAMP_API_KEY]);
    expect(JSON.parse(run.stdout)).toEqual({
      quote: 201,
      created: 201,
      amount: '5000.00',
      sameAmount: true,
      status: 'deposit_confirming',
      deposit: 'detected',
      missing: [404, 'NOT_FOUND'],
    });
  });

  it("refuses to compile what the spec forbids", async () => {
    const checked = await typeCheck(project(dir, 'bad'));
    expect(checked.code).not.toBe(0);
    // One error per line 3 to 8 of bad.ts, each a declaration the spec's rules forbid.
    const lines = [...checked.output.matchAll(/bad\.ts\((\d+),\d+\): error TS\d+/g)].map((m) => Number(m[1]));
    expect([...new Set(lines)].sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8]);
  });
});
