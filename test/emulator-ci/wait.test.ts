// `offramp emulator wait` as CI meets it: a port that accepts connections and closes or
// resets them at once (Docker's port proxy before the container listens), then starts
// answering; and `--ready-file F`, which waits for the file, then for the address in it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emulatorFor } from '../helpers/emulator.js';
import { runCli } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A port in front of `target`: its first `refuse` connections are closed at once (every
 * other one reset), as a port proxy does before its backend listens; then it relays.
 */
async function flakyDoor(target: number, refuse: number): Promise<{ port: number; turnedAway: () => number }> {
  let turnedAway = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (turnedAway < refuse) {
      if (turnedAway++ % 2 === 0) socket.end();
      else socket.resetAndDestroy();
      return;
    }
    const back = createConnection(target, '127.0.0.1');
    back.on('error', () => socket.destroy());
    socket.pipe(back).pipe(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    for (const s of sockets) s.destroy();
    return new Promise((r) => server.close(r));
  });
  return { port: (server.address() as AddressInfo).port, turnedAway: () => turnedAway };
}

describe('offramp emulator wait', () => {
  it('keeps waiting through closed and reset connections, then answers with the base URL', async () => {
    // Behind the door the port differs, as behind a Docker port map: its Host is allowed.
    const emu = await emulatorFor({ allowedHosts: ['127.0.0.1'] });
    cleanups.push(emu.close);
    const door = await flakyDoor(emu.emulator.port, 6);
    const r = await runMain(['emulator', 'wait', '--timeout', '20000', '--base-url', `http://127.0.0.1:${door.port}/api/v1/partner`]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The URL it reached (through the door), not the one the emulator says it bound.
    expect(r.stdout).toBe(`http://127.0.0.1:${door.port}/api/v1/partner\n`);
    expect(door.turnedAway()).toBe(6);
  });

  it('prints the URL it reached, whatever URL the health answer names', async () => {
    const server = createHttpServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: { status: 'ok', url: 'http://0.0.0.0:4010/api/v1/partner' } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => server.close(r)));
    const port = (server.address() as AddressInfo).port;
    const given = await runMain(['emulator', 'wait', '--timeout', '5000', '--base-url', `http://127.0.0.1:${port}/api/v1/partner`]);
    expect(given.stderr).toBe('');
    expect(given.stdout).toBe(`http://127.0.0.1:${port}/api/v1/partner\n`);
    // Only an origin given: the API's base path beside it.
    const bare = await runMain(['emulator', 'wait', '--timeout', '5000'], { env: { OFFRAMP_BASE_URL: `http://127.0.0.1:${port}` } });
    expect(bare.stdout).toBe(`http://127.0.0.1:${port}/api/v1/partner\n`);
  });

  it('a --timeout beyond what a timer holds (30d) waits without a timer warning', async () => {
    const emu = await emulatorFor();
    cleanups.push(emu.close);
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    cleanups.push(() => void process.off('warning', onWarning));
    const r = await runMain(['emulator', 'wait', '--timeout', '30d', '--base-url', emu.emulator.url]);
    expect(r.code).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(warnings.map((w) => w.name)).not.toContain('TimeoutOverflowWarning');
  });

  // Under the 1 s one try may take, each try's own limit is what is left of the budget, a
  // fraction of a millisecond off a whole number, which a timer refuses ("delay out of
  // range") unless rounded.
  it('a port that only ever closes: exit 7 at --timeout, saying what it last saw', async () => {
    const door = await flakyDoor(1, Number.MAX_SAFE_INTEGER);
    const r = await runMain(['emulator', 'wait', '--timeout', '400', '--base-url', `http://127.0.0.1:${door.port}/api/v1/partner`]);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^error: TIMEOUT: the emulator at http:\/\/127\.0\.0\.1:\d+ did not answer within 400 ms \(last: [^\n]*(cannot reach the emulator|connection lost)/);
    expect(r.stderr).not.toMatch(/INTERNAL|out of range/);
  });

  it('the built binary keeps waiting while a closed connection leaves nothing else running (no INTERNAL)', async () => {
    const door = await flakyDoor(1, Number.MAX_SAFE_INTEGER);
    const r = await runCli(['emulator', 'wait', '--timeout', '1500', '--base-url', `http://127.0.0.1:${door.port}/api/v1/partner`]);
    expect(r.stderr).toMatch(/^error: TIMEOUT: the emulator at http:\/\/127\.0\.0\.1:\d+ did not answer within 1500 ms/);
    expect(r.code).toBe(7);
    expect(door.turnedAway()).toBeGreaterThan(1);
  });

  it('--ready-file waits for the file, then for the address written in it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-wait-'));
    const file = join(dir, 'emulator.url');
    const emu = await emulatorFor({ allowedHosts: ['127.0.0.1'] });
    cleanups.push(emu.close);
    const door = await flakyDoor(emu.emulator.port, 2);
    // The file appears while the command waits (the fake sleep writes it on the third pause).
    let pauses = 0;
    const sleep = async (ms: number) => {
      if (++pauses === 3) writeFileSync(file, `http://127.0.0.1:${door.port}/api/v1/partner\n`);
      await new Promise((r) => setTimeout(r, Math.min(ms, 5)));
    };
    const r = await runMain(['emulator', 'wait', '--ready-file', file, '--timeout', '20000'], { sleep });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`http://127.0.0.1:${door.port}/api/v1/partner\n`);
    expect(pauses).toBeGreaterThanOrEqual(3);
    expect(door.turnedAway()).toBe(2);

    const never = await runMain(['emulator', 'wait', '--ready-file', join(dir, 'never.url'), '--timeout', '200']);
    expect(never.code).toBe(7);
    expect(never.stderr).toMatch(/^error: TIMEOUT: no ready file at .*never\.url within 200 ms/);
    writeFileSync(join(dir, 'bad.url'), 'not a url\n');
    const bad = await runMain(['emulator', 'wait', '--ready-file', join(dir, 'bad.url'), '--timeout', '200']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: USAGE: --ready-file .*bad\.url holds "not a url", not the emulator's URL/);
  });
});
