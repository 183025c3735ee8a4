// Issue 22's "done when", over every command that talks to the service: with
// `--timeout 300 --retries 0`, against a service that never answers, a proxy that never
// answers its CONNECT and one that closes every CONNECT, each command ends within a few
// seconds with a failure exit code, and when the proxy failed, the message names the proxy,
// never the service. The cases themselves are tested in depth in bounds.test.ts and
// proxy-failures.test.ts; this file checks that no command has a loop of its own that
// outlasts its flags.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, failingProxy, rawServer } from '../helpers/faulty.js';
import { runMain } from '../helpers/main.js';

const TX = '6f1c2f0e-1111-4222-8333-444455556666';
const DAY = ['--from', '2026-03-01', '--to', '2026-03-02'];

/** Every command that sends a request, with arguments that pass validation. */
const COMMANDS: string[][] = [
  ['quote', '--token', 'usdt', '--network', 'bep20', '--fiat-amount', '5000'],
  ['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', 'bounded-1'],
  ['tx', 'get', TX],
  ['tx', 'get', '--ref', 'bounded-1'],
  ['tx', 'list', '--all'],
  ['tx', 'cancel', TX, '--yes'],
  ['tx', 'history', TX],
  ['tx', 'watch', TX],
  ['revenue', 'export', ...DAY, '-o', 'csv', '--summary'],
  ['revenue', 'summary', ...DAY],
  ['reconcile', ...DAY],
  ['webhooks', 'list', '--all'],
  ['webhooks', 'get', TX],
  ['webhooks', 'replay', TX],
  ['webhooks', 'replay', '--failed'],
  ['simulate', TX, 'deposit.detected'],
  ['simulate', 'walk'],
  ['smoke'],
  ['api', 'GET', '/transactions', '--paginate'],
  ['doctor'],
  ['conform'],
];

/**
 * Short: nothing here ever answers, so the deadline only decides how long each run waits,
 * and what is asserted (exit 7 or 8, the proxy named whenever there is one) holds in
 * whichever phase a loaded machine lets the deadline fall.
 */
const TIMEOUT_MS = 300;
/**
 * Attempts a command may make in sequence against a silent service: one, but for tx
 * create, whose recovery reads the reference, sends the create again with its key and reads
 * once more (docs/configuration.md, "Retries and idempotency"), each bounded by --timeout.
 */
const attemptsOf = (args: string) => (args.startsWith('tx create') ? 4 : 1);
/** What a command may take beyond its one attempt: start-up, the loaded machine. */
const MARGIN_MS = 6000;

let closePort: number;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  closePort = await closedPort();
  // Every command once against a closed port (refused at once), so that the timed runs
  // below load no module on the clock: in process, the first import of a command pays
  // the test runner's transform, which a loaded machine can stretch past the margin.
  await everyCommand({ OFFRAMP_BASE_URL: `http://127.0.0.1:${closePort}/api/v1/partner` });
}, 60_000);
afterAll(async () => {
  for (const close of closers) await close();
});

async function everyCommand(env: Record<string, string>) {
  return Promise.all(
    COMMANDS.map(async (args) => {
      const started = Date.now();
      const r = await runMain([...args, '--timeout', String(TIMEOUT_MS), '--retries', '0'], {
        env: { OFFRAMP_API_KEY: 'sk_test_bounded_0001', ...env },
      });
      return { args: args.join(' '), ...r, ms: Date.now() - started };
    }),
  );
}

describe('every command ends within its flags', { timeout: 60_000 }, () => {
  it('against a service that never answers', async () => {
    const silent = await rawServer(() => undefined);
    closers.push(silent.close);
    const results = await everyCommand({ OFFRAMP_BASE_URL: `${silent.url}/api/v1/partner` });
    for (const r of results) {
      expect(r.code, `${r.args}: ${r.stderr}`).toBeOneOf([7, 8]);
      expect(r.ms, r.args).toBeLessThan(attemptsOf(r.args) * TIMEOUT_MS + MARGIN_MS);
    }
  });

  for (const behaviour of ['silent', 'close'] as const) {
    it(`through a proxy that ${behaviour === 'silent' ? 'never answers its CONNECT' : 'closes every CONNECT'}, naming the proxy`, async () => {
      const proxy = await failingProxy(behaviour);
      closers.push(proxy.close);
      const results = await everyCommand({ OFFRAMP_BASE_URL: `http://127.0.0.1:${closePort}/api/v1/partner`, http_proxy: proxy.url });
      for (const r of results) {
        expect(r.code, `${r.args}: ${r.stderr}`).toBeOneOf([7, 8]);
        expect(r.ms, r.args).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
        // doctor and conform report in their tables (stdout); the others in their error line.
        expect(`${r.stdout}${r.stderr}`, r.args).toContain(`proxy ${proxy.url}`);
        expect(r.stderr, r.args).not.toContain('is the service');
      }
    });
  }
});
