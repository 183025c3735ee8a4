// `offramp smoke` in process (main → command → client → emulator): a clean run against
// the emulator, then each invariant broken on its own by a proxy in front of the emulator.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { bindFor } from '../../src/lib/sandbox/receive.js';
import { emulatorFor } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { findAll, parseXml } from '../helpers/xml.js';
import { webhookReceiver } from '../emulator/helpers.js';
import { breakingProxy, type Breakage } from './breaking-proxy.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
let hooks: Awaited<ReturnType<typeof webhookReceiver>>;
beforeAll(async () => {
  hooks = await webhookReceiver();
  emu = await emulatorFor({ webhookUrl: hooks.url });
});
afterAll(async () => {
  await emu.close();
  await hooks.close();
});

const IDS = ['status-order', 'history-reasons', 'events-cover-steps', 'deliveries', 'ledger-row', 'cancel-refused'];

type Report = { ok: boolean; outcome: string; transaction_id: string; checks: { id: string; status: string; detail: string }[]; steps: { step: string }[] };

describe('offramp smoke', () => {
  it('passes against the emulator: readable report, exit 0, well-formed JUnit', async () => {
    const junit = join(emu.home.dir, 'reports', '..', 'smoke.xml');
    const r = await runMain(['smoke', '--junit', junit], { env: emu.env });
    expect(r.stderr).not.toMatch(/error:/);
    expect(r.code).toBe(0);
    for (const id of IDS) expect(r.stdout).toMatch(new RegExp(`^PASS  ${id}: `, 'm'));
    expect(r.stdout).toContain('6 checks: 6 passed, 0 failed, 0 skipped');
    expect(r.stdout).toMatch(/^PASS  deliveries: the transaction's webhook events were delivered to the endpoint\n +5 delivered$/m);
    // The walk is shown on stderr, one line per step (no TTY here).
    expect(r.stderr).toMatch(/^\[6\/6\] payout\.settled +completed \(unchanged\)/m);

    const root = parseXml(readFileSync(junit, 'utf8'));
    expect(root.name).toBe('testsuites');
    expect(root.attrs).toMatchObject({ tests: '6', failures: '0', errors: '0', skipped: '0' });
    const suite = findAll(root, 'testsuite')[0]!;
    expect(findAll(suite, 'property').find((p) => p.attrs.name === 'transaction_id')?.attrs.value).toMatch(/^[0-9a-f-]{36}$/);
    expect(findAll(suite, 'testcase').map((c) => c.attrs.name!.split(':')[0])).toEqual(IDS);
    expect(findAll(suite, 'failure')).toHaveLength(0);
  });

  it('--json gives a machine report; other outcomes skip the completed-only checks', async () => {
    const r = await runMain(['smoke', '--outcome', 'refunded', '--json'], { env: emu.env });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report).toMatchObject({ ok: true, outcome: 'refunded' });
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['status-order', 'pass'],
      ['history-reasons', 'pass'],
      ['events-cover-steps', 'pass'],
      ['deliveries', 'pass'],
      ['ledger-row', 'skip'],
      ['cancel-refused', 'skip'],
    ]);
    expect(report.steps.map((s) => s.step)).toEqual(['quote', 'create', 'deposit.detected', 'deposit.confirmed', 'transaction.failed', 'transaction.refunded']);
  });

  const txPath = /^\/api\/v1\/partner\/transactions\/[^/]+$/;
  const breakages: [string, Breakage][] = [
    [
      'status-order',
      // The history as the service would send it if it had recorded the steps out of order.
      { rewrite: (req, body) => (req.path.endsWith('/status-history') ? { ...body, data: { ...body.data, history: [...body.data.history].reverse() } } : undefined) },
    ],
    [
      'history-reasons',
      {
        rewrite: (req, body) =>
          req.path.endsWith('/status-history')
            ? { ...body, data: { ...body.data, history: body.data.history.map((h: { reason: string }, i: number) => (i === 2 ? { ...h, reason: 'Deposit confirmed' } : h)) } }
            : undefined,
      },
    ],
    [
      'events-cover-steps',
      {
        rewrite: (req, body) =>
          req.path.endsWith('/webhooks/events')
            ? { ...body, data: { ...body.data, data: body.data.data.filter((e: { event_type: string }) => e.event_type !== 'deposit.confirmed') } }
            : undefined,
      },
    ],
    [
      'events-cover-steps',
      // Listed, but its telemetry cannot be read.
      {
        answer: (req) =>
          /\/webhooks\/events\/[^/]+$/.test(req.path) && telemetryReads++ === 1
            ? { status: 404, body: { error: { code: 'NOT_FOUND', message: 'Webhook event not found', timestamp: new Date().toISOString() } } }
            : undefined,
      },
    ],
    [
      'ledger-row',
      {
        rewrite: (req, body) =>
          req.path.endsWith('/revenue')
            ? { ...body, data: { ...body.data, data: body.data.data.map((row: { amount: string }) => ({ ...row, amount: '49999.99' })) } }
            : undefined,
      },
    ],
    [
      'cancel-refused',
      // A service that lets a completed transaction be cancelled (the emulator is not asked).
      {
        answer: (req) =>
          req.method === 'POST' && req.path.endsWith('/cancel') ? { status: 200, body: { success: true, data: cancelled, message: 'cancelled' } } : undefined,
        rewrite: (req, body) => {
          if (req.method === 'GET' && txPath.test(req.path)) cancelled = { ...body.data, status: 'cancelled' };
          return undefined;
        },
      },
    ],
  ];
  let telemetryReads = 0;
  let cancelled: unknown;

  it.each(breakages)('fails %s (and only it) when the service breaks that rule', async (id, breakage) => {
    telemetryReads = 0;
    const proxy = await breakingProxy(emu.emulator.origin, breakage);
    try {
      const junit = join(emu.home.dir, `smoke-${id}-${Date.now()}.xml`);
      const r = await runMain(['smoke', '--json', '--junit', junit], { env: { ...emu.env, OFFRAMP_BASE_URL: proxy.baseUrl } });
      expect(r.code).toBe(8);
      const report = JSON.parse(r.stdout) as Report;
      expect(report.ok).toBe(false);
      const failed = report.checks.filter((c) => c.status === 'fail');
      expect(failed.map((c) => c.id)).toEqual([id]);
      expect(report.checks.filter((c) => c.status === 'pass')).toHaveLength(5);
      // --json: the error envelope on stderr, as for any failing command.
      expect(r.stderr).toMatch(/"code":"CHECK_FAILED"/);
      const root = parseXml(readFileSync(junit, 'utf8'));
      expect(root.attrs).toMatchObject({ tests: '6', failures: '1' });
      const failure = findAll(root, 'failure')[0]!;
      expect(failure.text).toBe(failed[0]!.detail);
    } finally {
      await proxy.close();
    }
  });

  it('a readable FAIL line and exit 8 without --json', async () => {
    const proxy = await breakingProxy(emu.emulator.origin, breakages[1]![1]);
    try {
      const r = await runMain(['smoke'], { env: { ...emu.env, OFFRAMP_BASE_URL: proxy.baseUrl } });
      expect(r.code).toBe(8);
      expect(r.stdout).toMatch(/^FAIL  history-reasons: every history reason has the scope:word form\n +not of the form scope:word: entry 3 \(deposit_confirming → selling_crypto\): "Deposit confirmed"$/m);
      expect(r.stdout).toContain('6 checks: 5 passed, 1 failed, 0 skipped');
      expect(r.stderr).toMatch(/^error: CHECK_FAILED: 1 of 6 smoke checks failed: history-reasons$/m);
    } finally {
      await proxy.close();
    }
  });

  it('a walk the service refuses part-way fails as a check; no service at all exits 7 with an <error> report', async () => {
    const proxy = await breakingProxy(emu.emulator.origin, {
      answer: (req) =>
        req.path.endsWith('/sandbox/simulate') && simulations++ === 1
          ? { status: 409, body: { error: { code: 'CONFLICT', message: 'not now', timestamp: new Date().toISOString() } } }
          : undefined,
    });
    let simulations = 0;
    try {
      const r = await runMain(['smoke', '--json'], { env: { ...emu.env, OFFRAMP_BASE_URL: proxy.baseUrl } });
      expect(r.code).toBe(8);
      const report = JSON.parse(r.stdout) as Report;
      expect(report.checks[0]).toMatchObject({ id: 'walk', status: 'fail', detail: expect.stringMatching(/CONFLICT: .*deposit\.confirmed.*not now/) });
      expect(report.steps.map((s) => s.step)).toEqual(['quote', 'create', 'deposit.detected']);
    } finally {
      await proxy.close();
    }

    const junit = join(emu.home.dir, 'unreachable.xml');
    const down = await runMain(['smoke', '--junit', junit, '--retries', '0'], { env: { ...emu.env, OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner' } });
    expect(down.code).toBe(7);
    expect(down.stderr).toMatch(/error: NETWORK: /);
    const root = parseXml(readFileSync(junit, 'utf8'));
    expect(root.attrs).toMatchObject({ tests: '1', errors: '1' });
    // With --json the report is on stdout whatever happened; the exit code says what.
    const json = await runMain(['smoke', '--json', '--retries', '0'], { env: { ...emu.env, OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner' } });
    expect(json.code).toBe(7);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, outcome: 'completed', transaction_id: null, checks: [{ id: 'walk', status: 'fail', detail: expect.stringMatching(/^NETWORK: /) }], steps: [] });
    expect(json.stderr).toMatch(/"code":"NETWORK"/);
  });

  it('deliveries: received by smoke itself without a webhook endpoint (URL put back), skipped with --no-deliveries, failed when the endpoint refuses them', async () => {
    // Retried briefly: smoke waits until a refused delivery is failed, not at its first refusal.
    const bare = await emulatorFor({ webhookRetry: { maxAttempts: 2, baseDelayMs: 5 }, webhookSecret: 'whsec_smoke_own_1' });
    const refusing = await webhookReceiver(() => 500);
    const endpoint = async () => ((await (await fetch(`${bare.emulator.controlUrl}/webhooks`)).json()) as { data: { url: string | null; registered_by: unknown } }).data;
    try {
      const own = await runMain(['smoke'], { env: bare.env });
      expect(own.code, own.stderr).toBe(0);
      expect(own.stderr).toMatch(/^Deliveries: received by smoke at http:\/\/127\.0\.0\.1:\d+\/ for this run and verified with the emulator's secret; the emulator's webhook URL is put back when smoke ends\.$/m);
      expect(own.stdout).toMatch(/^PASS  deliveries: .*\n +5 delivered to smoke's receiver, each signature verified with the emulator's secret \(hmac-sha256-hex\)$/m);
      expect(own.stdout).toContain('6 checks: 6 passed, 0 failed, 0 skipped');
      expect(own.stderr).toContain('The emulator records webhooks only again, as before.');
      expect(own.stdout + own.stderr).not.toContain('whsec_smoke_own_1');
      expect(await endpoint()).toMatchObject({ url: null, registered_by: null });

      const none = await runMain(['smoke', '--no-deliveries'], { env: bare.env });
      expect(none.code).toBe(0);
      expect(none.stderr).toContain('Deliveries: not received by smoke (--no-deliveries).');
      expect(none.stdout).toMatch(/^SKIP  deliveries: .*\n +skipped: no webhook endpoint \(5 events recorded, none sent\)$/m);
      expect(none.stdout).toContain('6 checks: 5 passed, 0 failed, 1 skipped');
      expect(none.stdout).toMatch(/^PASS  events-cover-steps: .*\n +5 events \(payout\.settled recorded \(no endpoint\), transaction\.completed recorded \(no endpoint\), /m);

      // Every other check holds: only the deliveries fail, and say why.
      expect((await runMain(['emulator', 'webhooks', 'set-url', refusing.url], { env: bare.env })).code).toBe(0);
      const failing = await runMain(['smoke', '--json'], { env: bare.env });
      expect(failing.code).toBe(8);
      const report = JSON.parse(failing.stdout) as Report;
      expect(report.checks.filter((c) => c.status !== 'pass').map((c) => c.id)).toEqual(['deliveries']);
      expect(report.checks.find((c) => c.id === 'deliveries')!.detail).toMatch(/^5 of 5 deliveries failed: .*transaction\.created (pending|failed) after \d attempts?: endpoint answered HTTP 500/);
    } finally {
      await bare.close();
      await refusing.close();
    }
  });

  it("deliveries: smoke's receiver refuses a signature the emulator's secret does not make (401, the receiver's answer in the failure)", async () => {
    const bare = await emulatorFor({ webhookRetry: { maxAttempts: 2, baseDelayMs: 5 } });
    // The control plane, seen through this proxy, gives smoke another secret than the one the emulator signs with.
    const proxy = await breakingProxy(bare.emulator.origin, { rewrite: (req, body) => (req.path === '/__emulator/webhooks' && req.method === 'GET' ? { ...body, data: { ...body.data, secret: 'whsec_not_the_emulators' } } : undefined) });
    try {
      const r = await runMain(['smoke', '--json'], { env: { ...bare.env, OFFRAMP_BASE_URL: proxy.baseUrl } });
      expect(r.code).toBe(8);
      const report = JSON.parse(r.stdout) as Report;
      expect(report.checks.filter((c) => c.status !== 'pass').map((c) => c.id)).toEqual(['deliveries']);
      expect(report.checks.find((c) => c.id === 'deliveries')!.detail).toMatch(/^5 of 5 deliveries failed \(to smoke's receiver at http:\/\/127\.0\.0\.1:\d+\/\): payout\.settled (pending|failed) after \d attempts?: endpoint answered HTTP 401: .*signature does not match the body/);
      // A failed run puts the URL back too.
      expect(r.stderr).toContain('The emulator records webhooks only again, as before.');
      expect(((await (await fetch(`${bare.emulator.controlUrl}/webhooks`)).json()) as { data: { url: string | null } }).data.url).toBeNull();
    } finally {
      await proxy.close();
      await bare.close();
    }
  });

  it('--receive-at: where smoke listens is read from the URL (docs/sandbox.md, "Deliveries")', () => {
    expect(bindFor('http://10.0.0.5:8788/')).toEqual({ host: '10.0.0.5', port: 8788, url: 'http://10.0.0.5:8788/' });
    expect(bindFor('http://build:9000/hooks')).toEqual({ host: '0.0.0.0', port: 9000, url: 'http://build:9000/hooks' });
    expect(bindFor('http://[fd00::5]/')).toMatchObject({ host: 'fd00::5', port: 80 });
  });

  it('--receive-at URL: smoke listens on its port and registers that URL; bad input is refused before anything is sent', async () => {
    const bare = await emulatorFor();
    try {
      const free = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as AddressInfo;
          probe.close(() => resolve(port));
        });
      });
      const at = `http://127.0.0.1:${free}/hooks`;
      const r = await runMain(['smoke', '--json', '--receive-at', at], { env: bare.env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`Deliveries: received by smoke at ${at} for this run`);
      expect((JSON.parse(r.stdout) as Report).checks.find((c) => c.id === 'deliveries')).toMatchObject({ status: 'pass', detail: expect.stringContaining("to smoke's receiver") });
      for (const [args, message] of [
        [['--receive-at', 'https://127.0.0.1:8788/'], '--receive-at: smoke receives plain http:// only'],
        [['--receive-at', 'not a url'], '--receive-at: "not a url" is not a URL'],
        [['--receive-at', at, '--no-deliveries'], '--receive-at and --no-deliveries: choose one'],
      ] as const) {
        const bad = await runMain(['smoke', ...args], { env: bare.env });
        expect(bad.code).toBe(2);
        expect(bad.stderr).toContain(`error: USAGE: ${message}`);
        expect(bad.stderr).not.toContain('[1/6]');
      }
    } finally {
      await bare.close();
    }
  });

  it('Ctrl-C part-way (the built binary): the emulator gets back the URL it had, exit 130', async () => {
    const slow = await emulatorFor();
    const endpoint = async () => ((await (await fetch(`${slow.emulator.controlUrl}/webhooks`)).json()) as { data: { url: string | null; registered_by: { command: string } | null } }).data;
    try {
      // The walk's first simulation hangs: Ctrl-C comes while smoke's receiver is registered.
      expect((await runMain(['emulator', 'fault', 'add', '--route', 'POST /sandbox/simulate', '--latency', '20000'], { env: slow.env })).code).toBe(0);
      const child = spawn(process.execPath, [BIN, 'smoke'], { env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, CI: 'true', NO_COLOR: '1', ...slow.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const exit = new Promise<number | null>((r) => child.on('close', r));
      await vi.waitFor(async () => expect((await endpoint()).registered_by).toMatchObject({ command: 'smoke' }), { timeout: 10_000, interval: 50 });
      await vi.waitFor(() => expect(stderr).toMatch(/^\[2\/6\] create/m), { timeout: 10_000, interval: 50 });
      child.kill('SIGINT');
      expect(await exit).toBe(130);
      expect(stderr).toContain('Stopped (SIGINT).');
      expect(stderr).toContain('The emulator records webhooks only again, as before.');
      expect(await endpoint()).toMatchObject({ url: null, registered_by: null });
    } finally {
      await slow.close();
    }
  });

  it('deliveries: an event refused once, then delivered on the retry, passes (smoke waits for the retry)', async () => {
    const seen = new Set<string>();
    // Each event's first delivery is refused; its retry is taken.
    const once = await webhookReceiver((_, d) => {
      const id = (d.body as { id?: string } | undefined)?.id ?? d.raw;
      if (seen.has(id)) return 200;
      seen.add(id);
      return 503;
    });
    const retrying = await emulatorFor({ webhookUrl: once.url, webhookRetry: { maxAttempts: 3, baseDelayMs: 400 } });
    try {
      const r = await runMain(['smoke', '--json'], { env: retrying.env });
      const report = JSON.parse(r.stdout) as Report;
      expect(report.checks.find((c) => c.id === 'deliveries')).toEqual({ id: 'deliveries', name: expect.any(String), status: 'pass', detail: '5 delivered (5 after a retry)' });
      expect(r.code).toBe(0);
    } finally {
      await retrying.close();
      await once.close();
    }
  });
});
