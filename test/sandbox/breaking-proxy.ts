// A proxy in front of the emulator that breaks one rule at a time, so each smoke
// invariant can be shown failing on its own: every request is forwarded, and the test's
// `rewrite` may change the answer's JSON (or `answer` may reply without forwarding).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxiedRequest = { method: string; path: string; query: URLSearchParams };
// Answers are edited freely in tests; typing every shape would only hide the intent.
export type Json = any;

export type Breakage = {
  /** Replace the emulator's JSON body of a successful answer; return undefined to keep it. */
  rewrite?(req: ProxiedRequest, body: Json): Json | undefined;
  /** Answer without asking the emulator (or after asking it something else); return undefined to forward. */
  answer?(req: ProxiedRequest, body: string): { status: number; body: Json } | undefined | Promise<{ status: number; body: Json } | undefined>;
};

export async function breakingProxy(emulatorOrigin: string, breakage: Breakage) {
  const seen: ProxiedRequest[] = [];
  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      // A broken rewrite must fail the test loudly, not hang the CLI until its timeout.
      res.writeHead(599, { 'content-type': 'text/plain' });
      res.end(`proxy: ${err.message}`);
    });
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://proxy');
    const info = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams };
    seen.push(info);
    const send = (status: number, body: Json) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const own = await breakage.answer?.(info, Buffer.concat(chunks).toString());
    if (own) return send(own.status, own.body);
    const headers: Record<string, string> = {};
    for (const name of ['x-api-key', 'content-type', 'idempotency-key', 'accept']) {
      const v = req.headers[name];
      if (typeof v === 'string') headers[name] = v;
    }
    const upstream = await fetch(emulatorOrigin + (req.url ?? '/'), {
      method: info.method,
      headers,
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
    });
    const body = (await upstream.json()) as Json;
    const changed = upstream.ok ? breakage.rewrite?.(info, body) : undefined;
    send(upstream.status, changed ?? body);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1/partner`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
