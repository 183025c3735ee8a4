// A missing id is asked for on a terminal and named otherwise (issue #16, item 6), as
// `tx get` and `simulate` already did: tx cancel, tx history, webhooks get.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { KEYS, runInPty } from '../helpers/pty.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
let txId: string;
let eventId: string;

beforeAll(async () => {
  emu = await emulatorFor();
  const made = await runMain(['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', 'args-1', '--json'], { env: emu.env });
  txId = JSON.parse(made.stdout).id;
  const events = await fetch(`${emu.emulator.url}/webhooks/events?limit=1`, { headers: { 'x-api-key': TEST_KEY } });
  eventId = ((await events.json()) as { data: { data: { event_id: string }[] } }).data.data[0]!.event_id;
});
afterAll(() => emu.close());

describe('missing ids', { timeout: 30_000 }, () => {
  it.each([
    [['tx', 'history'], 'Transaction id', () => txId, /transaction .*: awaiting_deposit/],
    [['webhooks', 'get'], 'Webhook event id', () => eventId, /transaction\.created/],
    [['tx', 'cancel'], 'Transaction id to cancel', () => txId, /cancelled/],
  ])('%s asks for it on a terminal', async (args, question, id, shows) => {
    const s = runInPty(args, emu.env, 20_000, 80);
    await s.waitFor(question);
    s.type(`${id()}${KEYS.enter}`);
    if (args[1] === 'cancel') {
      await s.waitFor(`cancel transaction ${id()}?`);
      s.type(`y${KEYS.enter}`);
    }
    const r = await s.done;
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(shows);
  });

  it.each([[['tx', 'history'], 'ID \\(or --ref MERCHANT_REFERENCE\\)'], [['tx', 'cancel'], 'ID \\(or --ref MERCHANT_REFERENCE\\)'], [['webhooks', 'get'], 'EVENT_ID']])('%s without a terminal names it, exit 2', async (args, name) => {
    const r = await runMain(args, { env: emu.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^error: USAGE: missing required flag: ${name}\\n`));
  });
});
