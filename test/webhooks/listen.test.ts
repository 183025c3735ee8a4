// `offramp webhooks listen` as a user runs it (the built binary): the emulator delivers a
// transaction's lifecycle to it; a forged delivery gets 401, a replay is a duplicate, a
// late older event is stored but out of order; Ctrl-C prints the tally and exits 130; a
// restart on the same store treats the old ids as received, and --forward-to relays.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { sign } from '../../src/lib/webhooks/signature.js';
import { parseStoredLine } from '../../src/lib/webhooks/store.js';
import { BIN, tempHome } from '../helpers/cli.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { partner } from '../tx/partner.js';

const SECRET = 'whsec_listen_e2e_4b1f';

function listen(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0', ...args], {
    env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, CI: 'true', NO_COLOR: '1', ...tempHome().env, OFFRAMP_WEBHOOK_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
  const url = vi.waitFor(
    () => {
      // The last start-up line: everything before it has been printed.
      const m = /Listening for webhooks on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr);
      if (!m || !stderr.includes('Press Ctrl-C to stop.')) throw new Error(`listener did not start: ${stderr}`);
      return m[1]!;
    },
    { timeout: 10_000, interval: 25 },
  );
  const lines = async (n: number) => {
    const now = () => stdout.split('\n').filter(Boolean);
    await vi.waitUntil(() => now().length >= n, { timeout: 10_000, interval: 25 }).catch(() => undefined);
    return now();
  };
  return { child, url, lines, done, stderr: () => stderr };
}

const post = (url: string, body: string, signature = sign(body, SECRET)) =>
  fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-webhook-signature': signature } }).then((r) => r.status);

let emu: Awaited<ReturnType<typeof emulatorFor>> | undefined;
afterAll(() => emu?.close());

describe('webhooks listen', { timeout: 60_000 }, () => {
  it('verifies, dedupes, stores, keeps statuses forward; survives a restart; forwards', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'offramp-listen-')), 'events.ndjson');
    // The emulator is given the URL at its start here (--no-register: nothing else is asked).
    const first = listen(['--store', store, '--no-register']);
    const url = await first.url;
    expect(first.stderr()).toContain(`Give the service this URL. To an emulator: offramp emulator webhooks set-url ${url}`);

    emu = await emulatorFor({ webhookUrl: `${url}hooks`, webhookSecret: SECRET });
    const api = partner(emu.emulator.url, TEST_KEY);
    const tx = await api.create('listen-1', '30000');
    for (const e of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) await api.simulate(tx.id, e);
    const delivered = await first.lines(4);
    expect(delivered).toHaveLength(4);
    // The emulator delivers several at once, so the lines may come in any order (the status
    // column never moves backwards: docs/webhooks.md); the completion's line is whole.
    expect(delivered.find((line) => / transaction\.completed /.test(line))).toMatch(new RegExp(`^\\S+Z  200  transaction\\.completed +[0-9a-f-]{36}  tx ${tx.id}  completed  hmac-sha256-hex$`));

    // A forged delivery is refused and not stored.
    const forged = JSON.stringify({ id: 'forged-1', type: 'transaction.completed', data: { id: tx.id } });
    expect(await post(url, forged, sign(forged, 'not-the-secret'))).toBe(401);
    // The service redelivers an event (replay): same id, a duplicate.
    const events = (await api.get(`/webhooks/events?transaction_id=${tx.id}`)).data as { event_id: string; event_type: string }[];
    const detected = events.find((e) => e.event_type === 'deposit.detected')!;
    expect((await api.call('POST', `/webhooks/events/${detected.event_id}/replay`)).status).toBe(200);
    // An older lifecycle step arriving late (a new id): stored, but the status stays completed.
    const late = JSON.stringify({ id: 'late-1', type: 'deposit.confirmed', data: { id: tx.id, status: 'selling_crypto' } });
    expect(await post(url, late)).toBe(200);

    const all = await first.lines(7);
    expect(all[4]).toMatch(/  401  bad signature, not stored  \(claims id forged-1\)/);
    const dup = all.slice(5).find((l) => l.includes(detected.event_id))!;
    expect(dup).toMatch(new RegExp(`200  deposit\\.detected +${detected.event_id}  tx ${tx.id}  completed  hmac-sha256-hex  duplicate$`));
    expect(all.find((l) => l.includes('late-1'))).toMatch(/200  deposit\.confirmed +late-1  tx \S+  completed  hmac-sha256-hex  out of order \(reports selling_crypto\)$/);

    first.child.kill('SIGINT');
    const stopped = await first.done;
    // Stopped by Ctrl-C: 130, as every interrupted command.
    expect(stopped.code).toBe(130);
    // The late one is out of order, and so is any of the emulator's own deliveries that came
    // after a later step (they go out concurrently): the tally counts what the lines showed.
    const outOfOrder = all.filter((l) => / out of order \(reports /.test(l)).length;
    expect(outOfOrder).toBeGreaterThanOrEqual(1);
    expect(stopped.stderr).toContain(`Stopped (SIGINT). received 7, stored 5, duplicates 1, rejected 1, forwarded 0, still owed 0; rejected: 1 bad signature; ${outOfOrder} out of order.`);
    expect(stopped.stderr).toContain(`  ${tx.id}  completed`);
    const stored = readFileSync(store, 'utf8').split('\n').filter(Boolean);
    // The store is in the order received; the list, newest first.
    expect(stored.map((l) => JSON.parse(l).id)).toEqual([...events.map((e) => e.event_id).reverse(), 'late-1']);
    // The exact body, with the header it came with and the scheme that matched.
    const lastStored = parseStoredLine(stored.at(-1)!)!;
    expect(lastStored.body.toString('utf8')).toBe(late);
    expect(lastStored).toMatchObject({ scheme: 'hmac-sha256-hex', signature: sign(late, SECRET) });
    expect(stopped.stdout + stopped.stderr).not.toContain(SECRET);

    // Restart on the same store, forwarding to an app.
    const relayed: string[] = [];
    const app = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      relayed.push(`${req.headers['x-svc-webhook-signature']}|${Buffer.concat(chunks)}`);
      res.writeHead(202).end();
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/webhooks`;
    const second = listen(['--store', store, '--forward-to', appUrl]);
    const url2 = await second.url;
    expect(second.stderr()).toContain('(5 events already in it count as received)');
    const firstBody = parseStoredLine(stored[0]!)!.body.toString('utf8');
    expect(await post(url2, firstBody)).toBe(200);
    const after = await second.lines(2);
    expect(after[0]).toMatch(new RegExp(`  200  transaction\\.created +${JSON.parse(stored[0]!).id}  tx ${tx.id}  completed  hmac-sha256-hex  duplicate$`));
    expect(after[1]).toBe(`  → ${JSON.parse(stored[0]!).id}  202 from ${appUrl} in ${after[1]!.match(/in (\d+) ms/)![1]} ms (duplicate)`);
    expect(relayed).toEqual([`${sign(firstBody, SECRET)}|${firstBody}`]);
    second.child.kill('SIGTERM');
    const end = await second.done;
    app.close();
    expect(end.code).toBe(143);
    expect(end.stderr).toContain('Stopped (SIGTERM). received 1, stored 0, duplicates 1, rejected 0, forwarded 1, still owed 0.');
    expect(readFileSync(store, 'utf8').split('\n').filter(Boolean)).toHaveLength(5);
  });

  it('refuses to start without a secret, on a busy port, or with a bad --forward-to', async () => {
    const noSecret = await runMain(['webhooks', 'listen', '--port', '0']);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/error: USAGE: no webhook secret/);
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = String((busy.address() as AddressInfo).port);
    const taken = await runMain(['webhooks', 'listen', '--port', port, '--store', join(mkdtempSync(join(tmpdir(), 'offramp-busy-')), 's.ndjson')], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
    busy.close();
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain(`error: USAGE: port ${port} on 127.0.0.1 is already in use`);
    expect((await runMain(['webhooks', 'listen', '--forward-to', 'ftp://x'], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } })).code).toBe(2);
    expect((await runMain(['webhooks', 'listen', '--port', '70000'], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } })).code).toBe(2);
  });
});
