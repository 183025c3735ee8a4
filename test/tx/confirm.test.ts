// The production confirmation on a terminal (issue #16, item 5): it says what would be
// created, answering No is the user's choice (exit 0, nothing sent), and Ctrl-C at the
// prompt is an interruption (130).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { KEYS, runInPty } from '../helpers/pty.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
const home = tempHome();
const env = { ...home.env, OFFRAMP_PROFILE: 'live' };

beforeAll(async () => {
  emu = await emulatorFor();
  const add = await runMain(['profile', 'add', 'live', '--env', 'production', '--base-url', emu.emulator.url, '--api-key-stdin'], { env: home.env, stdin: `${TEST_KEY}\n` });
  expect(add.code, add.stderr).toBe(0);
});
afterAll(() => emu.close());

const created = async (ref: string) => (await fetch(`${emu.emulator.url}/transactions/reference/${ref}`, { headers: { 'x-api-key': TEST_KEY } })).status;

describe('confirmation on a production profile', { timeout: 30_000 }, () => {
  it('names amount, token and network; No ends with exit 0 and nothing sent', async () => {
    const s = runInPty(['tx', 'create', '--fiat-amount', '150000', '--token', 'usdt', '--network', 'bep20', '--ref', 'prod-1'], env, 20_000, 80);
    // At 80 columns the question wraps: matched across line breaks.
    await s.waitFor(/create transaction prod-1: 150000 NGN paid out for usdt on bep20 on\s+PRODUCTION\s+\(profile live\)\?/);
    s.type(`n${KEYS.enter}`);
    const r = await s.done;
    expect(r.code).toBe(0);
    expect(r.output).toContain('transaction "prod-1" not created: you answered no at the confirmation; nothing was sent');
    expect(r.output).not.toContain('error:');
    expect(await created('prod-1')).toBe(404);
  });

  it('Ctrl-C at the prompt is an interruption: 130, nothing sent', async () => {
    const s = runInPty(['tx', 'create', '--fiat-amount', '150000', '--token', 'usdt', '--network', 'bep20', '--ref', 'prod-2'], env, 20_000, 80);
    await s.waitFor(/PRODUCTION\s+\(profile live\)\?/);
    s.type(KEYS.ctrlC);
    const r = await s.done;
    expect(r.code).toBe(130);
    expect(await created('prod-2')).toBe(404);
  });
});
