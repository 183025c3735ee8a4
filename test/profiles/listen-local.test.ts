// `webhooks listen` on a local profile (issue #16, item 11): it verifies with the
// emulator's public default secret, as `profile add --env local` stores the default key,
// instead of stopping with "no webhook secret".
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { killListeners, startListener } from '../helpers/listener.js';
import { runMain } from '../helpers/main.js';

afterEach(() => killListeners());

describe('listen on a local profile', { timeout: 20_000 }, () => {
  it('uses the emulator default secret', async () => {
    const home = tempHome();
    expect((await runMain(['profile', 'add', 'dev', '--env', 'local'], { env: home.env })).code).toBe(0);
    const listener = startListener(['--store', `${home.dir}/events.ndjson`], { ...home.env });
    const url = await listener.url;
    const body = JSON.stringify({ id: 'evt-local-1', type: 'transaction.created', data: { id: 'tx-1' } });
    const signature = createHmac('sha256', 'whsec_test_emulator').update(body).digest('hex');
    const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-webhook-signature': signature } });
    expect(res.status).toBe(200);
    const stopped = await listener.stop();
    expect(stopped.stderr).not.toContain('whsec_test_emulator');
  });
});
