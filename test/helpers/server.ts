// A real node:http server on a free loopback port for client edge cases the emulator
// cannot produce. Each test scripts the answers; every request is recorded, and one more
// than were scripted fails the test it came in: the setup file
// test/setup-files/scripted-servers.ts takes them (`takeUnexpected`) after each test, so no
// test file has to remember to look.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Recorded = { method: string; url: string; headers: IncomingMessage['headers']; body: string; at: number };
export type Answer = (req: Recorded, res: ServerResponse) => void | Promise<void>;

/** Every unscripted request since the last call, from any scripted server, for the per-test check. */
const unscripted: string[] = [];
export function takeUnexpected(): string[] {
  return unscripted.splice(0);
}

export async function scriptedServer(answers: Answer[]) {
  const requests: Recorded[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rec = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString(), at: Date.now() };
    const answer = answers[requests.length];
    requests.push(rec);
    if (!answer) {
      unscripted.push(`${rec.method} ${rec.url} (request ${requests.length}, ${answers.length} scripted)`);
      res.writeHead(599).end();
      return;
    }
    await answer(rec, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1/partner`,
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_test', ...headers });
    res.end(JSON.stringify(body));
  };
}

/** Accepts the request, then closes the connection without a word. */
export const drop: Answer = (_req, res) => {
  res.socket?.destroy();
};

export function errorBody(code: string, message: string) {
  return { error: { code, message, timestamp: '2026-11-22T10:00:00.000Z' } };
}
