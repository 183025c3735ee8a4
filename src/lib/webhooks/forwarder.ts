// `webhooks listen --forward-to URL`: relays each verified delivery (raw body, original
// headers) to the user's own app and reports its answer. It runs after the service has
// been answered, so a slow or broken app never delays the acknowledgement; at most
// FORWARD_PARALLEL relays run at once and at most FORWARD_BACKLOG wait, beyond which a
// delivery is reported as not forwarded rather than held in memory.
import pLimit from 'p-limit';
import { Agent, request } from 'undici';

export const FORWARD_PARALLEL = 16;
export const FORWARD_BACKLOG = 1000;
export const FORWARD_TIMEOUT_MS = 10_000;

/** Headers that belong to one connection, or that undici sets itself. */
const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'proxy-connection', 'te', 'trailer', 'expect']);

export type ForwardResult = {
  /** The delivery's event id, when it had one. */
  id: string | undefined;
  url: string;
  /** HTTP status the app answered, when it answered. */
  status?: number;
  /** First bytes of a non-2xx answer, or what went wrong. */
  detail?: string;
  ok: boolean;
  ms: number;
};

export class Forwarder {
  private readonly agent = new Agent({ keepAliveTimeout: 4000, connections: FORWARD_PARALLEL });
  // rejectOnClear: relays dropped at close settle, so close() can wait for the rest.
  private readonly limit = pLimit({ concurrency: FORWARD_PARALLEL, rejectOnClear: true });
  private readonly running = new Set<Promise<void>>();

  constructor(
    readonly url: string,
    private readonly onResult: (result: ForwardResult) => void,
  ) {}

  forward(id: string | undefined, raw: Buffer, headers: Record<string, string | string[] | undefined>): void {
    if (this.limit.pendingCount >= FORWARD_BACKLOG) {
      this.onResult({ id, url: this.url, ok: false, ms: 0, detail: `not forwarded: more than ${FORWARD_BACKLOG} relays waiting` });
      return;
    }
    const run = this.limit(() => this.send(id, raw, headers));
    this.running.add(run);
    void run.catch(() => undefined).finally(() => this.running.delete(run));
  }

  private async send(id: string | undefined, raw: Buffer, headers: Record<string, string | string[] | undefined>): Promise<void> {
    const started = performance.now();
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) out[name] = value;
    }
    try {
      const res = await request(this.url, {
        method: 'POST',
        body: raw,
        headers: out,
        dispatcher: this.agent,
        headersTimeout: FORWARD_TIMEOUT_MS,
        bodyTimeout: FORWARD_TIMEOUT_MS,
      });
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const text = ok ? (await res.body.dump(), '') : await res.body.text().catch(() => '');
      const detail = text.replace(/\s+/g, ' ').trim().slice(0, 120);
      this.onResult({ id, url: this.url, status: res.statusCode, ok, ms: Math.round(performance.now() - started), ...(detail ? { detail } : {}) });
    } catch (err) {
      const e = err as { code?: string; message?: string };
      this.onResult({ id, url: this.url, ok: false, ms: Math.round(performance.now() - started), detail: `${e.message ?? String(err)}${e.code ? ` (${e.code})` : ''}` });
    }
  }

  /** Waits for relays in flight (queued ones are dropped), then closes connections. */
  async close(): Promise<void> {
    this.limit.clearQueue();
    await Promise.allSettled([...this.running]);
    await this.agent.close().catch(() => undefined);
  }
}
