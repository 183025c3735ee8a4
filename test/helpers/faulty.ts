// Machines that misbehave, on loopback, for the client's bounds (time, memory, proxies):
// raw servers that answer whatever a test writes, proxies that fail the CONNECT one way
// each, Debian's squid and tinyproxy started on a free port with a config written here,
// and the built CLI run with its peak memory measured.
import { spawn } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, chmodSync, writeFileSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket, type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import { BIN, tempHome } from './cli.js';

/** A TCP server whose every connection goes to `onSocket`; sockets are destroyed on close. */
export async function rawServer(onSocket: (socket: Socket) => void) {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    connections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Calls `onRequest` with the head of each request read on a raw socket (keep-alive: each one). */
export function onRequests(socket: Socket, onRequest: (head: string) => void): void {
  let buffered = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffered.slice(0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.slice(end + 4 + length);
      onRequest(head);
    }
  });
}

export type ProxyBehaviour = 'silent' | 'close' | 403 | 407;

/** A proxy that fails every CONNECT the same way, counting them. */
export async function failingProxy(behaviour: ProxyBehaviour) {
  let connects = 0;
  const server = await rawServer((socket) => {
    onRequests(socket, () => {
      connects++;
      if (behaviour === 'close') socket.destroy();
      else if (behaviour === 403) socket.end('HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: 9\r\n\r\nforbidden');
      else if (behaviour === 407) socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="corp"\r\ncontent-length: 0\r\n\r\n');
      // silent: read, never answer
    });
  });
  return { ...server, connects: () => connects };
}

/** A scripted answer of `status` whose body never ends, written as fast as it is read. */
export function endlessBody(status: number) {
  return (_req: unknown, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 'b');
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
    };
    res.on('drain', pump);
    pump();
  };
}

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const s = await rawServer(() => undefined);
  await s.close();
  return s.port;
}

export type Measured = { code: number | null; stdout: string; stderr: string; ms: number; peakMiB: number };

/**
 * The built CLI as a child process, with its peak resident memory (getrusage maxrss,
 * written as the process exits by a preload; nothing else of the run changes).
 */
export function spawnMeasured(args: string[], env: Record<string, string | undefined>, timeoutMs = 60_000) {
  const dir = mkdtempSync(join(tmpdir(), 'offramp-peak-'));
  const preload = join(dir, 'peak.cjs');
  const out = join(dir, 'peak.txt');
  writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, String(process.resourceUsage().maxRSS)));\n`);
  const started = Date.now();
  const child = spawn(process.execPath, ['--require', preload, BIN, ...args], {
    // Whatever the run writes by default (a listener's store) lands in its own directory.
    cwd: dir,
    env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, ...tempHome().env, CI: 'true', NO_COLOR: '1', OFFRAMP_RETRY_BASE_MS: '5', ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<Measured>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started, peakMiB: existsSync(out) ? Number(readFileSync(out, 'utf8')) / 1024 : Number.NaN });
    }),
  );
  return { child, done, stdout: () => stdout, stderr: () => stderr };
}

export function runCliMeasured(args: string[], env: Record<string, string | undefined>, timeoutMs = 60_000): Promise<Measured> {
  return spawnMeasured(args, env, timeoutMs).done;
}

export const SQUID = '/usr/sbin/squid';
export const TINYPROXY = '/usr/bin/tinyproxy';

/**
 * squid or tinyproxy in the foreground on free loopback ports, from a config written here:
 * `shipped` at the rules as shipped (CONNECT only to port 443), `open` to any port. One
 * squid serves both (a port each, the rule keyed to the port: squid takes seconds to
 * start); tinyproxy's rules are global, so it runs twice (it starts at once). Resolves
 * once every port accepts connections.
 */
export async function realProxy(kind: 'squid' | 'tinyproxy') {
  const dir = mkdtempSync(join(tmpdir(), `offramp-${kind}-`));
  // squid started as root runs as its own user, which must write its log here.
  chmodSync(dir, 0o777);
  const shipped = await closedPort();
  const open = await closedPort();
  const configs: { conf: string; lines: string[] }[] =
    kind === 'squid'
      ? [
          {
            conf: join(dir, 'squid.conf'),
            lines: [
              `http_port 127.0.0.1:${shipped} name=shipped`,
              `http_port 127.0.0.1:${open} name=open`,
              'acl shipped myportname shipped',
              'acl SSL_ports port 443',
              'acl CONNECT method CONNECT',
              'http_access deny shipped CONNECT !SSL_ports',
              'http_access allow localhost',
              'http_access deny all',
              'cache deny all',
              `pid_filename ${join(dir, 'squid.pid')}`,
              'access_log none',
              `cache_log ${join(dir, 'cache.log')}`,
              `coredump_dir ${dir}`,
              'pinger_enable off',
              'shutdown_lifetime 0 seconds',
            ],
          },
        ]
      : [shipped, open].map((port) => ({
          conf: join(dir, `tinyproxy-${port}.conf`),
          lines: [`Port ${port}`, 'Listen 127.0.0.1', 'Timeout 30', 'MaxClients 20', 'Allow 127.0.0.1', ...(port === shipped ? ['ConnectPort 443', 'ConnectPort 563'] : []), 'LogLevel Warning'],
        }));
  const children = configs.map(({ conf, lines }) => {
    writeFileSync(conf, [...lines, ''].join('\n'));
    const child = kind === 'squid' ? spawn(SQUID, ['-N', '-f', conf], { stdio: 'ignore' }) : spawn(TINYPROXY, ['-d', '-c', conf], { stdio: 'ignore' });
    return { child, conf, exited: new Promise<void>((resolve) => child.on('exit', () => resolve())) };
  });
  const close = async () => {
    for (const { child } of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => c.exited));
  };
  const dead = () => children.find((c) => c.child.exitCode !== null);
  for (const port of [shipped, open]) {
    // Up when it accepts; a proxy that exited will not come up, so stop waiting for it.
    const up = await vi
      .waitUntil(async () => (await accepts(port)) || dead() !== undefined, { timeout: 15_000, interval: 50 })
      .then(() => dead() === undefined, () => false);
    if (!up) {
      await close();
      throw new Error(`${kind} did not start (config ${(dead() ?? children[0]!).conf})`);
    }
  }
  return { shipped: `http://127.0.0.1:${shipped}`, open: `http://127.0.0.1:${open}`, close };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
