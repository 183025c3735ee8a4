// Durations one way (docs/output.md, "Durations"): every time flag takes 500ms, 3s, 2m, 1h;
// a bare number keeps the unit the flag always had; one parser.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseDuration, parseDurationRange } from '../../src/lib/duration.js';
import { emulatorFor } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { scriptedServer } from '../helpers/server.js';

describe('parseDuration', () => {
  it('reads units, sums and bare numbers in the flag’s unit', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('3s')).toBe(3000);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('2500', 'ms')).toBe(2500);
    expect(parseDuration('300', 's')).toBe(300_000);
    expect(parseDuration('30')).toMatch(/not a duration/);
    expect(parseDuration('3x', 'ms')).toMatch(/a bare number is milliseconds/);
    expect(parseDuration('400d')).toMatch(/more than a year/);
  });

  it('reads ranges with the unit after the maximum, on each side, or fixed', () => {
    expect(parseDurationRange('100-2000ms', 'ms')).toEqual({ min: 100, max: 2000 });
    expect(parseDurationRange('1-3s', 'ms')).toEqual({ min: 1000, max: 3000 });
    expect(parseDurationRange('500ms-2s', 'ms')).toEqual({ min: 500, max: 2000 });
    expect(parseDurationRange('250', 'ms')).toEqual({ min: 250, max: 250 });
    expect(parseDurationRange('2s-1s', 'ms')).toMatch(/runs backwards/);
  });
});

describe('time flags', () => {
  it('--timeout takes a unit: emulator wait --timeout 3s waits for the emulator', async () => {
    const emu = await emulatorFor();
    try {
      const r = await runMain(['emulator', 'wait', '--timeout', '3s'], { env: emu.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(emu.emulator.url.replace(/\/api\/v1\/partner$/, ''));
    } finally {
      await emu.close();
    }
  });

  it('a bare --timeout is still milliseconds: 300 gives up on a silent server at once', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      const r = await runMain(['emulator', 'wait', '--timeout', '300', '--base-url', `http://127.0.0.1:${port}/api/v1/partner`]);
      expect(r.code).toBe(7);
      expect(r.stderr).toContain('within 300 ms');
    } finally {
      silent.close();
    }
  });

  it.each([
    [['tx', 'list', '--timeout', '3x'], /--timeout.*not a duration/],
    [['tx', 'watch', '0b6f3c1e-0000-4000-8000-000000000000', '--interval', '50ms'], /--interval must be from 100ms/],
    [['webhooks', 'verify', '--secret', 'whsec_test_000000', '--signature', 'ab', '--tolerance', '1500ms'], /--tolerance is whole seconds/],
    [['webhooks', 'resend', '--from-store', 'x.ndjson', '--to', 'http://127.0.0.1:9/', '--delay', '2s-1s'], /--delay: .*runs backwards/],
    [['emulator', 'fault', 'add', '--route', 'GET /transactions', '--latency', 'soon'], /--latency: .*not a duration/],
  ])('refuses a bad duration before any request: %j', async (args, message) => {
    const server = await scriptedServer([]);
    try {
      const r = await runMain([...args, '--base-url', server.baseUrl, '--api-key', 'sk_test_dur_000001']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
