// `webhooks list` and `webhooks replay --failed` on a real pseudo-terminal 80 and 100
// columns wide: no row wraps (one screen line per event), and what a reader came for is
// cut last: the ids keep their head, the delivery or publish status stays whole, and the
// last error keeps at least "no webhook endpoint configured". Widths are terminal cells
// (docs/output.md, "Widths"): a last error in Chinese with emoji fits as an English one.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runInPty } from '../helpers/pty.js';
import { json, scriptedServer } from '../helpers/server.js';
import { broken, cells, graphemesOf } from '../output/cells.js';
import { partner } from '../tx/partner.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
let events: { event_id: string; aggregate_id: string }[] = [];

beforeAll(async () => {
  // No webhook endpoint: every delivery fails at once, with the emulator's long last error.
  emu = await emulatorFor();
  const api = partner(emu.emulator.url, TEST_KEY);
  for (let i = 0; i < 3; i++) {
    const tx = await api.create(`widths-${i}`);
    for (const e of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) await api.simulate(tx.id, e);
  }
  const failed = async () => ((await api.get('/webhooks/events?delivery_status=failed&limit=100')) as { data: typeof events }).data;
  events = await vi.waitFor(async () => {
    const now = await failed();
    expect(now).toHaveLength(12);
    return now;
  }, { timeout: 5_000 });
});
afterAll(() => emu.close());

/** The screen's lines that are rows of the table (a header, then one per event). */
const rows = (screen: string) => screen.split('\n').filter((l) => /^[0-9a-f]{8}/.test(l));

describe.each([80, 100])('at %i columns', { timeout: 60_000 }, (columns) => {
  it('webhooks list: one line per event, the transaction kept, status whole, the last error readable', async () => {
    const r = await runInPty(['webhooks', 'list', '--all'], emu.env, 20_000, columns).done;
    expect(r.code, r.output).toBe(0);
    const lines = r.screen.split('\n').filter((l) => l.trim() !== '');
    for (const l of lines) expect(cells(l), l).toBeLessThanOrEqual(columns);
    expect(lines[0]).toMatch(/^EVENT ID\s+TYPE\s+TRANSACTION\s+DELIVERY\s+.*LAST ERROR$/);
    const shown = rows(r.screen);
    expect(shown).toHaveLength(12);
    for (const row of shown) {
      const event = events.find((e) => row.startsWith(e.event_id.slice(0, 8)));
      expect(event, row).toBeDefined();
      expect(row).toContain(event!.aggregate_id.slice(0, 8));
      // failed, or pending again for an instant after the replay test's round.
      expect(row).toMatch(/ (failed|pending) /);
      expect(row).toMatch(/ no webhook endpoint configured/);
    }
  });

  it('webhooks replay --failed: one line per event, the publish status whole', async () => {
    const r = await runInPty(['webhooks', 'replay', '--failed'], emu.env, 20_000, columns).done;
    expect(r.code, r.output).toBe(0);
    const table = r.screen.split('\n').filter((l) => l.trim() !== '' && !/^Replay scheduled/.test(l));
    for (const l of table) expect(cells(l), l).toBeLessThanOrEqual(columns);
    expect(table[0]).toMatch(/^EVENT ID\s+TYPE\s+TRANSACTION\s+.*PUBLISH STATUS$/);
    const shown = rows(r.screen);
    expect(shown).toHaveLength(12);
    for (const row of shown) expect(row).toMatch(/ pending$/);
  });
});

describe.each([80, 100])('webhooks list at %i columns, a last error in CJK with emoji', { timeout: 60_000 }, (columns) => {
  // What a partner's endpoint (or the service) may have answered, kept as the last error.
  const ERROR = '端点返回 HTTP 500：内部服务器错误 👨‍👩‍👧‍👦🇳🇬🧑‍💻 请稍后重试，再次投递';
  const event = (n: number) => ({
    event_id: `5d0e7a2b-1c3d-4e5f-8a9b-0c1d2e3f4a7${n}`,
    aggregate_id: `0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c9${n}`,
    event_type: 'transaction.completed',
    delivery_status: 'failed',
    attempts: 6,
    last_error: `${ERROR} #${n}`,
    created_at: '2026-11-20T10:00:00.000Z',
    updated_at: '2026-11-20T10:05:00.000Z',
  });

  it('one line per event, the error cut between whole characters', async () => {
    const page = json(200, { success: true, data: { data: [event(1), event(2), event(3)], has_more: false, next_cursor: null, limit: 20 } });
    const server = await scriptedServer([page, page, page]);
    try {
      const env = { ...tempHome().env, OFFRAMP_API_KEY: 'sk_test_widths_0001', OFFRAMP_BASE_URL: server.baseUrl };
      const r = await runInPty(['webhooks', 'list'], env, 20_000, columns).done;
      expect(r.code, r.output).toBe(0);
      const lines = r.screen.split('\n').filter((l) => l.trim() !== '');
      for (const l of lines) expect(cells(l), l).toBeLessThanOrEqual(columns);
      for (const l of lines) expect(broken(l), l).toBe(false);
      const shown = rows(r.screen);
      expect(shown).toHaveLength(3);
      const whole = new Set(graphemesOf(`${ERROR} #123`));
      for (const row of shown) {
        expect(row).toMatch(/ failed /);
        const error = row.slice(row.indexOf('端点'));
        expect(error, row).toMatch(/^端点返回 HTTP 500/u);
        for (const g of graphemesOf(error)) if (g !== '…') expect(whole.has(g), `${JSON.stringify(g)} in ${row}`).toBe(true);
      }
    } finally {
      await server.close();
    }
  });
});
