// The test's own line to the emulator: what the service really holds, read without the
// CLI, to compare the CLI's `--json` with the API's `data` and to drive the simulator.
// Reads are retried past injected 5xx faults (a GET is safe to repeat).
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';

export function partner(baseUrl: string, apiKey: string) {
  async function call(method: string, path: string, body?: unknown, idempotencyKey?: string) {
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { 'x-api-key': apiKey };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
      let res: Response;
      try {
        res = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      } catch (err) {
        if (method === 'GET' || idempotencyKey) {
          if (attempt < 50) continue;
        }
        throw err;
      }
      const json = (await res.json().catch(() => undefined)) as { data?: any; error?: { code: string; message: string } } | undefined;
      if (res.status >= 500 && (method === 'GET' || idempotencyKey) && attempt < 50) continue;
      return { status: res.status, data: json?.data, error: json?.error };
    }
  }
  return {
    call,
    async get(path: string) {
      const r = await call('GET', path);
      if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.error)}`);
      return r.data;
    },
    async create(ref: string, fiat = '5000') {
      const r = await call('POST', '/transactions', { fiat_amount: fiat, crypto_currency: 'usdt', network: 'bep20', merchant_reference: ref }, `test-${ref}`);
      if (r.status !== 201) throw new Error(`create ${ref}: ${r.status} ${JSON.stringify(r.error)}`);
      return r.data as { id: string; merchant_reference: string };
    },
    async simulate(id: string, event: string) {
      const r = await call('POST', '/sandbox/simulate', { transaction_id: id, event });
      if (r.status !== 200) throw new Error(`simulate ${event}: ${r.status} ${JSON.stringify(r.error)}`);
      return r.data;
    },
    /** Every transaction, following the cursor. */
    async all(): Promise<any[]> {
      const out: any[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await this.get(`/transactions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        out.push(...page.data);
        cursor = page.has_more ? page.next_cursor : null;
      } while (cursor);
      return out;
    },
  };
}

/** An emulator on loopback and the test's own line to it, for a file's tests to share. */
export async function emulatorWithPartner() {
  const emu = await emulatorFor();
  return { emu, api: partner(emu.emulator.url, TEST_KEY) };
}
