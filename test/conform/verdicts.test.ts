// The verdicts of `offramp conform`, from hand-made observations: each rule of
// src/lib/conform/verdicts.ts, and what --save writes.
import { describe, expect, it } from 'vitest';
import {
  applySettings,
  assess,
  assessCall,
  assessDeliveredStatus,
  assessDeliveryStatus,
  assessError,
  assessFilter,
  assessList,
  assessPageSize,
  assessRetryAfter,
  assessSignature,
  assessValues,
  emptyObservation,
  markSaved,
  passes,
  publicFinding,
  retryAfterForm,
  type ListObs,
  type Observation,
} from '../../src/lib/conform/verdicts.js';
import { PassThrough } from 'node:stream';
import { IO } from '../../src/lib/io.js';
import { fitColumns, lines, renderReport } from '../../src/lib/conform/render.js';

const page = (over: Partial<Extract<ListObs, { shape: string }>> = {}): ListObs => ({
  shape: 'page-object',
  location: 'data',
  mustContinue: true,
  follow: 'ok',
  defaultSize: { stated: 20, count: 2, more: false },
  ...over,
});

/** An observation of the emulator as the probes see it. */
function emulatorLike(): Observation {
  const o = emptyObservation();
  o.calls = { quote: { status: 201 }, create: { status: 201 }, get: { status: 200 }, simulate: { status: 200 } };
  o.lists = { transactions: page(), webhooks: page(), revenue: page({ defaultSize: { stated: 50, count: 1, more: false }, mustContinue: false, follow: 'not-needed' }) };
  o.filters = {
    transactions: { status: { honoured: 'status' }, from: { honoured: 'from' }, to: { honoured: 'to' } },
    webhooks: {
      transaction_id: { honoured: 'transaction_id' },
      event_type: { honoured: 'event_type' },
      delivery_status: { honoured: 'delivery_status' },
      from: { honoured: 'from' },
      to: { honoured: 'to' },
    },
    revenue: { crypto_currency: { honoured: 'crypto_currency' }, network: { honoured: 'network' } },
  };
  o.errors = {
    '400': { status: 400, code: 'BAD_REQUEST', enveloped: true },
    '401': { status: 401, code: 'UNAUTHORIZED', enveloped: true },
    '404': { status: 404, code: 'NOT_FOUND', enveloped: true },
    '409': { status: 409, code: 'CONFLICT', enveloped: true },
  };
  o.requestIdHeaders = ['x-request-id'];
  o.values = { deposit_status: { seen: ['null', 'detected', 'confirmed'] }, delivery_status: { seen: ['failed', 'delivered', 'pending'] }, publish_status: { seen: ['pending'] } };
  o.signature = { schemes: ['hmac-sha256-hex', 'hmac-sha256-hex'], deliveries: 2 };
  return o;
}

describe('conform verdicts', () => {
  it('the emulator against itself: every point same, and it passes', () => {
    const findings = assess(emulatorLike(), { service: {} });
    const notSame = findings.filter((f) => f.verdict !== 'same');
    // Calls the hand-made observation left out are "not probed" on both sides.
    expect(notSame.every((f) => f.verdict === 'skipped' && f.observed === 'not probed')).toBe(true);
    expect(findings.find((f) => f.point === 'signature scheme')?.verdict).toBe('same');
    expect(passes(findings)).toBe(true);
    expect(findings.map((f) => f.point)).toContain('filter: webhooks delivery_status');
  });

  it('success statuses: another 2xx is handled, an error is unsupported, a skipped call is skipped', () => {
    expect(assessCall('create', { status: 200 })).toMatchObject({ verdict: 'handled', emulator: '201', observed: '200', action: 'the CLI accepts any 2xx' });
    expect(assessCall('create', { failed: { status: 422, code: 'INVALID', message: 'nope' } })).toMatchObject({
      verdict: 'unsupported',
      observed: '422 INVALID',
    });
    expect(assessCall('cancel', { skipped: 'production: read-only' })).toMatchObject({ verdict: 'skipped', observed: 'production: read-only' });
  });

  it('lists: another cursor place is handled; no cursor on a page that must continue, or a refused cursor, is unsupported', () => {
    expect(assessList('transactions', page({ shape: 'array', location: 'wrapper' }))).toMatchObject({
      verdict: 'handled',
      emulator: 'page object, cursor in data',
      observed: 'array, cursor beside data',
    });
    expect(assessList('webhooks', page({ shape: 'array', location: 'none', follow: 'no-cursor' })).verdict).toBe('unsupported');
    expect(assessList('webhooks', page({ follow: 'refused', followError: '400 BAD_REQUEST' }))).toMatchObject({
      verdict: 'unsupported',
      observed: 'page object, cursor in data; cursor does not work',
    });
    expect(assessList('revenue', page({ location: 'none', mustContinue: false, follow: 'not-needed' })).verdict).toBe('skipped');
    expect(assessList('revenue', { skipped: 'the list answered 500' }).verdict).toBe('skipped');
  });

  it('default page size is informational', () => {
    expect(assessPageSize('transactions', page({ defaultSize: { count: 25, more: true } }))).toMatchObject({ verdict: 'handled', observed: '25' });
    expect(assessPageSize('transactions', page({ defaultSize: { count: 3, more: false } }))).toMatchObject({ verdict: 'handled', observed: '3 or more' });
    expect(assessPageSize('transactions', page()).verdict).toBe('same');
  });

  it('filters: a found name needs a setting; ignored everywhere is handled on the CLI side; a saved name is handled', () => {
    const found = assessFilter('transactions', 'status', { honoured: 'state' }, {});
    expect(found).toMatchObject({ verdict: 'needs-setting', observed: 'state', setting: { kind: 'filterName', list: 'transactions', filter: 'status', name: 'state' } });
    expect(found.action).toMatch(/--save stores state/);
    const ignored = assessFilter('revenue', 'network', { ignored: ['network', 'chain', 'blockchain'] }, {});
    expect(ignored).toMatchObject({ verdict: 'handled', observed: 'ignored' });
    expect(ignored.action).toMatch(/filtered on the CLI's side only/);
    const saved = assessFilter('transactions', 'status', { honoured: 'state' }, { filterNames: { transactions: { status: 'state' } } });
    expect(saved).toMatchObject({ verdict: 'handled', action: 'the profile sends it as state' });
    // A stale saved name: the service reads the CLI's own name again.
    const stale = assessFilter('transactions', 'status', { honoured: 'status' }, { filterNames: { transactions: { status: 'state' } } });
    expect(stale).toMatchObject({ verdict: 'needs-setting', setting: { name: 'status' } });
    expect(assessFilter('webhooks', 'to', { skipped: 'no records to test with' }, {}).verdict).toBe('skipped');
  });

  it('errors: another code is handled; 404 and 409 under another status are unsupported; both amounts accepted is handled', () => {
    expect(assessError('401', { status: 401, code: 'AUTH_INVALID', enveloped: true })).toMatchObject({
      verdict: 'handled',
      observed: '401 AUTH_INVALID',
    });
    expect(assessError('401', { status: 403, code: undefined, enveloped: false })).toMatchObject({
      verdict: 'handled',
      observed: '403 no envelope',
    });
    expect(assessError('404', { status: 400, code: 'BAD_REQUEST', enveloped: true }).verdict).toBe('unsupported');
    expect(assessError('409', { status: 422, code: 'X', enveloped: true }).verdict).toBe('unsupported');
    expect(assessError('409', { skipped: 'production: read-only' }).verdict).toBe('skipped');
    expect(assessError('400', { accepted: 201 }).verdict).toBe('handled');
  });

  it('open values: unknown values are handled; a failure-looking delivery status needs a setting unless failed is seen', () => {
    expect(assessValues('deposit_status', { seen: ['detected'] }).verdict).toBe('same');
    expect(assessValues('deposit_status', { seen: ['seen'] }).verdict).toBe('handled');
    expect(assessDeliveryStatus({ seen: ['delivered'] }, {}).verdict).toBe('same');
    const errored = assessDeliveryStatus({ seen: ['queued', 'succeeded', 'errored'] }, {});
    expect(errored).toMatchObject({ verdict: 'needs-setting', setting: { kind: 'failedStatus', value: 'errored' } });
    expect(assessDeliveryStatus({ seen: ['succeeded', 'dead_letter'] }, {}).setting).toEqual({ kind: 'failedStatus', value: 'dead_letter' });
    // Once the profile says so, it is handled; a service that also says `failed` needs nothing.
    expect(assessDeliveryStatus({ seen: ['succeeded', 'errored'] }, { failedStatus: 'errored' }).verdict).toBe('handled');
    expect(assessDeliveryStatus({ seen: ['ok', 'failed'] }, {}).verdict).toBe('handled');
    expect(assessDeliveryStatus({ seen: ['ok', 'waiting'] }, {}).verdict).toBe('handled');
    expect(assessValues('publish_status', { skipped: 'production: read-only' }).verdict).toBe('skipped');
    // The delivered word, which reconcile needs: found, named by the profile, or not seen.
    expect(assessDeliveredStatus({ seen: ['delivered'] }, {}).verdict).toBe('same');
    expect(assessDeliveredStatus({ seen: ['queued', 'succeeded', 'errored'] }, {})).toMatchObject({
      verdict: 'needs-setting',
      observed: 'succeeded',
      setting: { kind: 'deliveredStatus', value: 'succeeded' },
    });
    expect(assessDeliveredStatus({ seen: ['undelivered'] }, {}).verdict).toBe('skipped');
    expect(assessDeliveredStatus({ seen: ['succeeded'] }, { deliveredStatus: 'succeeded' }).verdict).toBe('handled');
  });

  it('Retry-After: its form, seconds or HTTP-date, both handled', () => {
    expect(retryAfterForm('3')).toBe('seconds');
    expect(retryAfterForm('Wed, 21 Oct 2026 07:28:00 GMT')).toBe('HTTP-date');
    expect(retryAfterForm('')).toBe('absent');
    expect(assessRetryAfter([])).toMatchObject({ verdict: 'same', observed: 'no 429 seen' });
    expect(assessRetryAfter(['Wed, 21 Oct 2026 07:28:00 GMT'])).toMatchObject({ verdict: 'handled', observed: 'HTTP-date' });
    expect(assessRetryAfter(['2'])).toMatchObject({ verdict: 'handled', observed: 'seconds' });
  });

  it('signature: another scheme needs a setting; none verifying is unsupported; no store is skipped', () => {
    expect(assessSignature({ schemes: ['timestamped-sha256', 'timestamped-sha256'], deliveries: 2 }, {})).toMatchObject({
      verdict: 'needs-setting',
      observed: 'timestamped-sha256',
      setting: { kind: 'signatureScheme', value: 'timestamped-sha256' },
    });
    expect(assessSignature({ schemes: ['timestamped-sha256'], deliveries: 1 }, { signatureScheme: 'timestamped-sha256' }).verdict).toBe('handled');
    expect(assessSignature({ schemes: [], deliveries: 3 }, {}).verdict).toBe('unsupported');
    expect(assessSignature({ skipped: 'no --store given' }, {}).verdict).toBe('skipped');
  });

  it('--save: applies the settings, keeps the rest, and marks the findings saved', () => {
    const before = { filterNames: { webhooks: { event_type: 'type' }, transactions: { status: 'state' } }, signatureScheme: 'hmac-sha512-hex' };
    const after = applySettings(before, [
      { kind: 'filterName', list: 'transactions', filter: 'from', name: 'created_after' },
      { kind: 'filterName', list: 'transactions', filter: 'status', name: 'status' },
      { kind: 'failedStatus', value: 'errored' },
    ]);
    expect(after).toEqual({
      filterNames: { webhooks: { event_type: 'type' }, transactions: { from: 'created_after' } },
      signatureScheme: 'hmac-sha512-hex',
      failedStatus: 'errored',
    });
    expect(before.filterNames.transactions).toEqual({ status: 'state' });

    const target = emulatorLike();
    target.filters.transactions!.status = { honoured: 'state' };
    const findings = assess(target, { service: {} });
    expect(passes(findings)).toBe(false);
    const saved = markSaved(findings, 'live');
    const row = saved.find((f) => f.point === 'filter: transactions status')!;
    expect(row).toMatchObject({ verdict: 'saved', action: 'saved in profile live: filterNames.transactions.status = state' });
    expect(passes(saved)).toBe(true);
    expect(publicFinding(row)).not.toHaveProperty('setting');
  });
});

describe('conform report layout', () => {
  it('wraps at spaces and fits 80 columns', () => {
    expect(lines('page object, cursor in data', 14)).toEqual(['page object,', 'cursor in data']);
    expect(lines('x-correlation-id', 8)).toEqual(['x-correl', 'ation-id']);
    const findings = assess(emulatorLike(), { service: {} }).map(publicFinding);
    const w = fitColumns(findings, 80);
    expect(w.point + w.emulator + w.observed + 'VERDICT'.length + 6).toBeLessThanOrEqual(80);
    expect(w.emulator).toBeGreaterThanOrEqual('hmac-sha256-hex'.length);
  });

  it("shows the service's control characters, in the table and in what the CLI does", () => {
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const io = new IO({ stdin: new PassThrough(), stdout, stderr: new PassThrough(), env: {} });
    // Each control character shows as four: the table is laid out for what is shown.
    const observed = `ok\x1b[2J ${Array(20).fill('\x07\x07').join(' ')}`;
    const finding = { point: 'values: deposit_status', emulator: 'detected', observed, verdict: 'handled' as const, action: 'ok\x1b[2J: shown as the service sends it' };
    renderReport(io, { target: 'http://127.0.0.1:1', env: 'staging', findings: [finding] });
    expect(text).not.toMatch(/[\x07\x1b]/);
    expect(text).toContain('ok\\x1b[2J');
    expect(text).toContain('values: deposit_status: ok\\x1b[2J: shown as the service sends it');
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });
});
