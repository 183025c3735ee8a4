// Every answer the emulator gives in the tests is held to the OpenAPI document
// (docs/openapi.yaml; docs/api.md, "OpenAPI"): the helpers that start an emulator
// (emulatorFor, startApi, startVariant) pass `holdToDocument` as its `onAnswer`, which
// checks each answer's status, content type, declared headers and body with ajv (JSON
// Schema 2020-12, formats on), and the test during which an answer broke the document
// fails after it ends, naming the answer and what broke. The emulator tests' webhook
// receiver holds each delivery to the document's `webhooks:` the same way.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { parse } from 'yaml';
import type { Answered } from '../../src/emulator/index.js';

type Json = Record<string, any>;

export const DOCUMENT_PATH = new URL('../../docs/openapi.yaml', import.meta.url);

/** The checks of one OpenAPI document (the committed one unless given). */
export function documentChecker(document: Json = parse(readFileSync(DOCUMENT_PATH, 'utf8'))) {
  // Not strict: the document carries OpenAPI's own keywords and x- extensions beside JSON
  // Schema's (Redocly lints its structure, test/openapi/lint.test.ts).
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  // ajv-formats is CommonJS: its plugin is the default export's default under NodeNext.
  (formats as unknown as { default: (a: Ajv2020) => void }).default(ajv);
  ajv.addSchema(document, 'openapi');
  const validators = new Map<string, ValidateFunction>();
  const validator = (pointer: string) => {
    let v = validators.get(pointer);
    if (!v) validators.set(pointer, (v = ajv.compile({ $ref: `openapi#${pointer}` })));
    return v;
  };
  const at = (pointer: string): any => pointer.split('/').slice(1).reduce((node, part) => node?.[unescape(part)], document as any);
  /** A `$ref` followed (once: the document's responses and headers refer to components directly). */
  const resolved = (pointer: string): string => {
    const ref = at(pointer)?.$ref;
    return typeof ref === 'string' && ref.startsWith('#/') ? ref.slice(1) : pointer;
  };
  const errorsOf = (v: ValidateFunction, dataVar = 'body') => ajv.errorsText(v.errors, { dataVar });

  /** What breaks the document in one webhook delivery (its `webhooks:` entry): the body for its type, the header parameters. */
  const delivery = (headers: Record<string, string | string[] | undefined>, raw: string): string[] => {
    let body: { type?: unknown };
    try {
      body = JSON.parse(raw);
    } catch {
      return ['a webhook delivery: the body is not JSON'];
    }
    const operation = `/webhooks/${escape(String(body.type))}/post`;
    const what = `the ${String(body.type)} delivery`;
    if (!at(operation)) return [`${what}: the document has no such webhook`];
    const problems: string[] = [];
    const v = validator(`${operation}/requestBody/content/application~1json/schema`);
    if (!v(body)) problems.push(`${what}: ${errorsOf(v)}`);
    (at(`${operation}/parameters`) as unknown[]).forEach((_, i) => {
      const parameter = resolved(`${operation}/parameters/${i}`);
      const { name, required } = at(parameter) as { name: string; required?: boolean };
      const value = headers[name.toLowerCase()];
      if (value === undefined) {
        if (required) problems.push(`${what}: header ${name} is missing`);
      } else if (!validator(`${parameter}/schema`)(String(value))) problems.push(`${what}: header ${name} does not fit its schema`);
    });
    return problems;
  };

  /** What breaks the document in one answer (empty when nothing does). */
  const check = (answer: Answered): string[] => {
    const what = `${answer.method} ${answer.path} → ${answer.status}`;
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return [`${what}: the body is not JSON`];
    }
    if (answer.route === undefined) {
      // No operation: an unknown path. It must still be an error in the envelope.
      const v = validator('/components/schemas/ErrorEnvelope');
      return v(body) ? [] : [`${what}: ${errorsOf(v)}`];
    }
    const [method, path] = answer.route.split(' ') as [string, string];
    const operation = `/paths/${escape(path.replace(/:([A-Za-z_]+)/g, '{$1}'))}/${method.toLowerCase()}`;
    if (!at(operation)) return [`${what}: the document has no operation ${answer.route}`];
    const responses = at(`${operation}/responses`) as Json;
    const key = [String(answer.status), `${String(answer.status)[0]}XX`, 'default'].find((k) => k in responses);
    if (!key) return [`${what}: the document allows no such status for ${answer.route}`];
    const response = resolved(`${operation}/responses/${escape(key)}`);
    const problems: string[] = [];
    const contentType = String(answer.headers['content-type'] ?? '').split(';')[0]!.trim();
    const content = at(`${response}/content`) as Json | undefined;
    if (!content?.[contentType]) problems.push(`${what}: content type ${contentType || '(none)'} is not the document's (${Object.keys(content ?? {}).join(', ')})`);
    else {
      const v = validator(`${response}/content/${escape(contentType)}/schema`);
      if (!v(body)) problems.push(`${what}: ${errorsOf(v)}`);
    }
    for (const name of Object.keys(at(`${response}/headers`) ?? {})) {
      const header = resolved(`${response}/headers/${escape(name)}`);
      const value = Object.entries(answer.headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
      if (value === undefined) {
        if (at(header).required) problems.push(`${what}: header ${name} is missing`);
        continue;
      }
      const v = validator(`${header}/schema`);
      if (!v(String(value))) problems.push(`${what}: ${errorsOf(v, `header ${name}`)}`);
    }
    return problems;
  };
  return Object.assign(check, { delivery });
}

const escape = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
const unescape = (part: string) => part.replace(/~1/g, '/').replace(/~0/g, '~');

// ------------------------------------------------------------------ for the helpers

// Answers are kept as they come and checked after the test (or once they hold a lot of
// bytes, on the next turn of the event loop): building and compiling the checks costs
// time, which must not slow the emulator's answers down in tests that time them.
let committed: ReturnType<typeof documentChecker> | undefined;
type Delivered = { headers: Record<string, string | string[] | undefined>; raw: string };
const pending: (Answered | Delivered)[] = [];
let pendingBytes = 0;
const broken: string[] = [];
const BATCH_BYTES = 32 * 1024 * 1024;

function checkPending(): void {
  if (pending.length === 0) return;
  committed ??= documentChecker();
  for (const item of pending.splice(0)) broken.push(...('raw' in item ? committed.delivery(item.headers, item.raw) : committed(item)));
  pendingBytes = 0;
}

/** `onAnswer` for every emulator a test starts: what breaks the document fails the test (afterEach). */
export function holdToDocument(answer: Answered): void {
  pending.push(answer);
  pendingBytes += answer.body.length;
  if (pendingBytes > BATCH_BYTES) setImmediate(checkPending);
}

/** For a test's webhook receiver: each delivery of the emulator is held to the document's `webhooks:` too. */
export function holdDelivery(headers: Record<string, string | string[] | undefined>, raw: string): void {
  pending.push({ headers, raw });
  pendingBytes += raw.length;
  if (pendingBytes > BATCH_BYTES) setImmediate(checkPending);
}

/** The answers (and deliveries) that broke the document since the last call, forgotten. */
export function takeBroken(): string[] {
  checkPending();
  return broken.splice(0);
}
