// tx watch's loop, in process with a fake clock against a scripted server: which polls
// and history reads are made, what is shown per change, and the exit codes 0 / 7 / 8.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/main.js';
import { json, scriptedServer, type Answer } from '../helpers/server.js';
import { failingProxy } from '../helpers/faulty.js';
import { history, KEY, ok, snapshot, TX_ID } from './fixtures.js';

const servers: Awaited<ReturnType<typeof scriptedServer>>[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    await s.close();
  }
});

async function watch(args: string[], answers: Answer[]) {
  const server = await scriptedServer(answers);
  servers.push(server);
  let t = Date.parse('2026-11-22T10:00:00Z');
  const sleeps: number[] = [];
  const r = await runMain(['tx', 'watch', ...args], {
    env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl },
    now: () => new Date(t),
    sleep: async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
  });
  return { ...r, sleeps, paths: server.requests.map((q) => q.url.replace('/api/v1/partner', '')) };
}

const CHANGED_AT: Record<string, string> = { awaiting_deposit: '10:01', deposit_confirming: '10:02', selling_crypto: '10:03', completed: '10:04', expired: '10:05' };
const at = (status: string, extra: Record<string, unknown> = {}) =>
  json(200, ok(snapshot({ status, updated_at: `2026-11-22T${CHANGED_AT[status]}:00.000Z`, ...extra })));
/** The history as far as `statuses`, rows at 10:00, 10:01, … */
const upTo = (statuses: string[]) => json(200, ok(history(statuses)));
const HIST = `/transactions/${TX_ID}/status-history`;
const GET = `/transactions/${TX_ID}`;

describe('tx watch', () => {
  it('shows every change in order, each once, those between two polls included, then the final status', async () => {
    const r = await watch(
      [TX_ID, '--interval', '500'],
      [
        at('awaiting_deposit'),
        upTo(['awaiting_deposit']),
        // Unchanged: the history is not read again.
        at('awaiting_deposit'),
        // Four changes between two polls.
        at('completed', { deposit_status: 'confirmed', confirmations: 15, required_confirmations: 15 }),
        upTo(['awaiting_deposit', 'deposit_confirming', 'selling_crypto', 'order_filled', 'completed']),
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      '2026-11-22T10:00:00.000Z  pending → awaiting_deposit  test:awaiting_deposit',
      '2026-11-22T10:01:00.000Z  awaiting_deposit → deposit_confirming  test:deposit_confirming',
      '2026-11-22T10:02:00.000Z  deposit_confirming → selling_crypto  test:selling_crypto',
      '2026-11-22T10:03:00.000Z  selling_crypto → order_filled  test:order_filled',
      '2026-11-22T10:04:00.000Z  order_filled → completed  test:completed',
      'final status: completed, deposit confirmed (15/15 confirmations)',
    ]);
    expect(r.paths).toEqual([GET, HIST, GET, GET, HIST]);
    expect(r.sleeps).toEqual([500, 500]);
    expect(r.stderr).toContain('reached completed');
  });

  it('a history listed in another order, with times that tie, is shown in the order the changes happened', async () => {
    const rows = history(['awaiting_deposit', 'deposit_confirming', 'selling_crypto', 'order_filled', 'completed']).history;
    // Whole seconds, as a service may write them: order_filled and completed share one.
    for (const row of rows) row.changed_at = row.changed_at.replace('.000Z', 'Z');
    rows[4]!.changed_at = rows[3]!.changed_at;
    const shuffled = [rows[4], rows[2], rows[0], rows[3], rows[1]];
    const r = await watch([TX_ID], [at('completed'), json(200, ok({ id: TX_ID, status: 'completed', history: shuffled }))]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n').map((l) => l.split('  ')[1])).toEqual([
      'pending → awaiting_deposit',
      'awaiting_deposit → deposit_confirming',
      'deposit_confirming → selling_crypto',
      'selling_crypto → order_filled',
      'order_filled → completed',
      undefined,
    ]);
  });

  it('a history that lags the snapshot is read again at the next poll, and no change is shown twice', async () => {
    const r = await watch(
      [TX_ID, '--interval', '100'],
      [
        at('deposit_confirming'),
        upTo(['awaiting_deposit']),
        at('deposit_confirming'),
        upTo(['awaiting_deposit', 'deposit_confirming']),
        at('expired'),
        upTo(['awaiting_deposit', 'deposit_confirming', 'expired']),
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n').map((l) => l.split('  ')[1])).toEqual([
      'pending → awaiting_deposit',
      'awaiting_deposit → deposit_confirming',
      'deposit_confirming → expired',
      undefined,
    ]);
  });

  it('--timeout passing while the service answers 503s is still exit 7 naming the status it was last seen in', async () => {
    const failing = json(503, { error: { code: 'SERVICE_UNAVAILABLE', message: 'down for maintenance', timestamp: '2026-11-22T10:00:00Z' } });
    const r = await watch(['--timeout', '30s', TX_ID, '--interval', '1s'], [at('awaiting_deposit'), upTo(['awaiting_deposit']), ...Array.from({ length: 400 }, () => failing)]);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/error: TIMEOUT: --timeout 30000 ms passed before a final status; transaction \S+ is still awaiting_deposit/);
  });

  it('--timeout is the overall deadline: exit 7 naming the status it is still in', async () => {
    const r = await watch(['--timeout', '1000', TX_ID, '--interval', '400'], [at('awaiting_deposit'), upTo(['awaiting_deposit']), ...Array.from({ length: 3 }, () => at('awaiting_deposit'))]);
    expect(r.code).toBe(7);
    expect(r.sleeps).toEqual([400, 400, 200]);
    expect(r.stderr).toMatch(/error: TIMEOUT: --timeout 1000 ms passed before a final status; transaction \S+ is still awaiting_deposit$/m);
  });

  it('--ref resolves once, then polls by id; a status passed between polls counts (history)', async () => {
    const r = await watch(
      ['--ref', 'order-1', '--until', 'order_filled', '--interval', '100'],
      [
        at('selling_crypto'),
        upTo(['awaiting_deposit', 'deposit_confirming', 'selling_crypto']),
        at('completed'),
        upTo(['awaiting_deposit', 'deposit_confirming', 'selling_crypto', 'order_filled', 'completed']),
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.paths).toEqual(['/transactions/reference/order-1', HIST, GET, HIST]);
    expect(r.stderr).toMatch(/reached order_filled at 2026-11-22T10:03:00.000Z \(now completed\)/);
  });

  it('ending in another final status is exit 8; --json prints the last snapshot only', async () => {
    const last = snapshot({ status: 'failed' });
    const r = await watch([TX_ID, '--until', 'completed', '--json'], [json(200, ok(last)), upTo(['awaiting_deposit', 'failed'])]);
    expect(r.code).toBe(8);
    expect(JSON.parse(r.stdout)).toEqual(last);
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!)).toMatchObject({ error: { code: 'CHECK_FAILED', message: expect.stringContaining('ended in failed, not completed') } });
  });

  it('-o ndjson writes each change, the history entry as the service sent it', async () => {
    const r = await watch(
      [TX_ID, '-o', 'ndjson', '--interval', '100'],
      [at('awaiting_deposit'), upTo(['awaiting_deposit']), at('awaiting_deposit'), at('expired'), upTo(['awaiting_deposit', 'expired'])],
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual(history(['awaiting_deposit', 'expired']).history);
  });

  it('--timeout holds on the real clock when the service goes silent or drips mid-watch: exit 7 at the deadline', async () => {
    const silent: Answer = () => undefined;
    const drip: Answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 50);
    };
    for (const stall of [silent, drip]) {
      const server = await scriptedServer([at('awaiting_deposit'), upTo(['awaiting_deposit']), stall]);
      servers.push(server);
      const started = Date.now();
      const r = await runMain(['tx', 'watch', TX_ID, '--timeout', '1500', '--interval', '200'], { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl } });
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(/error: TIMEOUT: --timeout 1500 ms passed before a final status; transaction \S+ is still awaiting_deposit/);
      // No retry starts that the deadline could not hold.
      expect(server.requests).toHaveLength(3);
      expect(Date.now() - started).toBeLessThan(1500 + 5000);
    }
  });

  describe('an outage', () => {
    /** A service on a fixed loopback port that can go away (connections refused) and come back, answering `answers` in turn. */
    async function flaky(answers: Answer[]) {
      let served = 0;
      const server = createServer((req, res) => {
        const answer = answers[served++];
        if (answer) void answer({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '', at: Date.now() }, res);
        else res.writeHead(599).end();
      });
      const listen = (port = 0) => new Promise<number>((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
      const port = await listen();
      return {
        baseUrl: `http://127.0.0.1:${port}/api/v1/partner`,
        served: () => served,
        down: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
        up: () => listen(port),
      };
    }

    it('is ridden out: said once on stderr when it starts and once when it ends, and the watch goes on to exit 0', async () => {
      const service = await flaky([at('awaiting_deposit'), upTo(['awaiting_deposit']), at('completed'), upTo(['awaiting_deposit', 'deposit_confirming', 'selling_crypto', 'order_filled', 'completed'])]);
      let t = Date.parse('2026-11-22T10:00:00Z');
      let sleeps = 0;
      let outageLeft = -1;
      const r = await runMain(['tx', 'watch', TX_ID, '--interval', '2s'], {
        env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: service.baseUrl },
        now: () => new Date(t),
        sleep: async (ms) => {
          t += ms;
          sleeps++;
          // After the first poll the service goes away for 20 pauses (polls and the client's own retries), then comes back.
          if (sleeps === 1) {
            await service.down();
            outageLeft = 20;
          } else if (outageLeft > 0 && --outageLeft === 0) await service.up();
        },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr.match(/does not answer/g)).toHaveLength(1);
      expect(r.stderr).toMatch(/^warning: the service does not answer \(.*\); still watching, a read every 2000 ms until Ctrl-C$/m);
      expect(r.stderr).toMatch(/^the service answers again, after \d+ s; still watching$/m);
      expect(r.stderr).toContain('reached completed');
      expect(r.stdout).toContain('final status: completed');
      expect(service.served()).toBe(4);
      await service.down();
    });

    it('says a long outage in minutes and seconds, as every span in a sentence', async () => {
      const service = await flaky([at('awaiting_deposit'), upTo(['awaiting_deposit']), at('completed'), upTo(['awaiting_deposit', 'completed'])]);
      let t = Date.parse('2026-11-22T10:00:00Z');
      let sleeps = 0;
      const r = await runMain(['tx', 'watch', TX_ID, '--interval', '1m'], {
        env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: service.baseUrl },
        now: () => new Date(t),
        sleep: async (ms) => {
          t += ms;
          // Down after the first poll, back once three minutes have passed.
          if (++sleeps === 1) await service.down();
          else if (t >= Date.parse('2026-11-22T10:03:00Z')) await service.up();
        },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^the service answers again, after [2-4] min \d+ s; still watching$/m);
      await service.down();
    });

    it('lasts no longer than --timeout: exit 7 at the deadline, naming the status it was last seen in', async () => {
      const service = await flaky([at('awaiting_deposit'), upTo(['awaiting_deposit'])]);
      let t = Date.parse('2026-11-22T10:00:00Z');
      let first = true;
      const r = await runMain(['tx', 'watch', TX_ID, '--interval', '1s', '--timeout', '30s'], {
        env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: service.baseUrl },
        now: () => new Date(t),
        sleep: async (ms) => {
          t += ms;
          if (first) await service.down();
          first = false;
        },
      });
      expect(r.code).toBe(7);
      expect(r.stderr.match(/does not answer/g)).toHaveLength(1);
      expect(r.stderr).toMatch(/still watching, a read every 1000 ms until --timeout passes$/m);
      expect(r.stderr).toMatch(/error: TIMEOUT: --timeout 30000 ms passed before a final status; transaction \S+ is still awaiting_deposit/);
      expect(t - Date.parse('2026-11-22T10:00:00Z')).toBe(30_000);
    });

    it('still on at --timeout names the machine that failed, whichever read the deadline cut short: a proxy is not the service', async () => {
      const proxy = await failingProxy('close');
      let t = Date.parse('2026-11-22T10:00:00Z');
      // Every read goes through a proxy that closes each CONNECT; the pauses land on the
      // deadline, so the last read has no time left and fails on the budget alone.
      const r = await runMain(['tx', 'watch', TX_ID, '--interval', '1s', '--timeout', '5s', '--retries', '0'], {
        env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: 'http://127.0.0.1:1/api/v1/partner', http_proxy: proxy.url },
        now: () => new Date(t),
        sleep: async (ms) => {
          t += ms;
        },
      });
      await proxy.close();
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toMatch(/error: TIMEOUT: --timeout 5000 ms passed before a final status; the transaction was not read \(.*proxy http:\/\/127\.0\.0\.1:\d+/);
      expect(t - Date.parse('2026-11-22T10:00:00Z')).toBe(5000);
      expect(proxy.connects()).toBeGreaterThan(1);
    });
  });
});
