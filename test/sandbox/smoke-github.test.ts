// `offramp smoke --report github`, in process (main → command → client): an `::error`
// annotation per failed invariant on stdout, a markdown table appended to
// $GITHUB_STEP_SUMMARY, and --junit written beside them as before.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { findAll, parseXml } from '../helpers/xml.js';
import { breakingProxy } from './breaking-proxy.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => {
  emu = await emulatorFor();
});
afterAll(() => emu.close());

/** The ledger row's amount no longer matches the transaction's: `ledger-row` fails, with a detail on two lines. */
const breakLedger = {
  rewrite: (req: { path: string }, body: any) =>
    req.path.endsWith('/revenue') ? { ...body, data: { ...body.data, data: body.data.data.map((row: object) => ({ ...row, amount: '49999.99' })) } } : undefined,
};

describe('offramp smoke --report github', () => {
  it('passes: no annotation, a summary table of every check appended to $GITHUB_STEP_SUMMARY, and the JUnit file', async () => {
    const summary = join(emu.home.dir, 'step-summary.md');
    writeFileSync(summary, '## earlier step\n');
    const junit = join(emu.home.dir, 'smoke-github.xml');
    const r = await runMain(['smoke', '--report', 'github', '--junit', junit, '--no-deliveries'], { env: { ...emu.env, GITHUB_STEP_SUMMARY: summary } });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('::error');
    // No webhook endpoint on this emulator, and smoke told not to receive: the deliveries check says so and is skipped.
    expect(r.stdout).toContain('6 checks: 5 passed, 0 failed, 1 skipped');
    const md = readFileSync(summary, 'utf8');
    // Appended: what the earlier step wrote stays.
    expect(md.startsWith('## earlier step\n')).toBe(true);
    expect(md).toMatch(/^### ✅ offramp smoke \(completed\): 5 passed, 0 failed, 1 skipped$/m);
    expect(md).toMatch(/^transaction `[0-9a-f-]{36}` · reference `[^`]+` · \d+\.\d\d s$/m);
    expect(md).toContain('| result | check | invariant | detail |');
    for (const id of ['status-order', 'history-reasons', 'events-cover-steps', 'ledger-row', 'cancel-refused']) {
      expect(md).toMatch(new RegExp(`^\\| ✅ pass \\| \`${id}\` \\| .+ \\| .+ \\|$`, 'm'));
    }
    expect(md).toMatch(/^\| ⏭️? ?skip \| `deliveries` \| .+ \| skipped: no webhook endpoint .+ \|$/m);
    expect(parseXml(readFileSync(junit, 'utf8')).attrs).toMatchObject({ tests: '6', failures: '0', skipped: '1' });
  });

  it('fails: one ::error line per failed invariant (escaped), ❌ in the table, exit 8', async () => {
    const proxy = await breakingProxy(emu.emulator.origin, breakLedger);
    try {
      const summary = join(emu.home.dir, 'failed-summary.md');
      const junit = join(emu.home.dir, 'failed.xml');
      const r = await runMain(['smoke', '--report', 'github', '--junit', junit], { env: { ...emu.env, OFFRAMP_BASE_URL: proxy.baseUrl, GITHUB_STEP_SUMMARY: summary } });
      expect(r.code).toBe(8);
      const annotations = r.stdout.split('\n').filter((l) => l.startsWith('::'));
      expect(annotations).toHaveLength(1);
      // The title's ':' is escaped as a property must be; the message stays on one line.
      expect(annotations[0]).toMatch(/^::error title=offramp smoke%3A ledger-row::.+49999\.99/);
      expect(r.stdout).toMatch(/^FAIL  ledger-row: /m);
      const md = readFileSync(summary, 'utf8');
      expect(md).toMatch(/^### ❌ offramp smoke \(completed\): 5 passed, 1 failed, 0 skipped$/m);
      expect(md).toMatch(/^\| ❌ fail \| `ledger-row` \| .+49999\.99.+ \|$/m);
      const failure = findAll(parseXml(readFileSync(junit, 'utf8')), 'failure')[0]!;
      expect(annotations[0]).toContain(failure.text.replace(/%/g, '%25').replace(/\n/g, '%0A'));
    } finally {
      await proxy.close();
    }
  });

  it('with --json the annotations go to stderr and stdout stays the JSON report; no summary file, no summary', async () => {
    const proxy = await breakingProxy(emu.emulator.origin, breakLedger);
    try {
      const r = await runMain(['smoke', '--report', 'github', '--json'], { env: { ...emu.env, OFFRAMP_BASE_URL: proxy.baseUrl, GITHUB_STEP_SUMMARY: '' } });
      expect(r.code).toBe(8);
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: false });
      expect(r.stderr).toMatch(/^::error title=offramp smoke%3A ledger-row::/m);
    } finally {
      await proxy.close();
    }
  });

  it('a service that cannot be reached: one annotation, a summary saying no check ran, the usual exit code', async () => {
    const summary = join(emu.home.dir, 'down-summary.md');
    const r = await runMain(['smoke', '--report', 'github', '--retries', '0'], {
      env: { OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner', OFFRAMP_API_KEY: 'sk_test_e2e_partner_0001', GITHUB_STEP_SUMMARY: summary },
    });
    expect(r.code).toBe(7);
    expect(r.stdout).toMatch(/^::error title=offramp smoke \(completed\)::no check ran: NETWORK: /m);
    expect(readFileSync(summary, 'utf8')).toMatch(/^### ❌ offramp smoke \(completed\): no check ran\n\nThe service could not be reached: NETWORK: /);
  });

  it('refuses another report format before anything is sent', async () => {
    const summary = join(emu.home.dir, 'never.md');
    const r = await runMain(['smoke', '--report', 'gitlab'], { env: { ...emu.env, GITHUB_STEP_SUMMARY: summary } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--report <format>' argument 'gitlab' is invalid/);
    expect(existsSync(summary)).toBe(false);
  });
});
