// The emulator image (docker/Dockerfile, npm run build:image), built on the local base
// (scripts/debian-root.sh image) and driven from this host as a partner's CI would: a
// published port, a state volume, the admin token in the environment. The webhooks leave
// the container for a receiver this test runs on the host's bridge address (docker0), the
// one address of the host a container reaches; a container restarted on the volume keeps
// the state, after `docker stop` and after `docker kill` alike.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type DeliveryInfo, type Receiver } from '../src/lib/webhooks/receiver.js';
import { BINARY_X64, VERSION, run, tempHome } from './helpers.js';

const DOCKER = spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;
/** The host's address on Docker's default bridge, docker0 (down, so unlisted by os.networkInterfaces, until a container joins). */
const BRIDGE = /\binet (\d+\.\d+\.\d+\.\d+)\//.exec(spawnSync('ip', ['-4', '-o', 'addr', 'show', 'dev', 'docker0'], { encoding: 'utf8' }).stdout ?? '')?.[1];
const why = !DOCKER
  ? 'no Docker daemon answers (apt-get install docker.io, then start dockerd)'
  : !BRIDGE
    ? 'Docker has no default bridge here, for the webhook receiver to listen on'
    : undefined;

const IMAGE = `offramp-emulator:${VERSION}`;
const TOKEN = 'admin-token-image-test-0001';
const KEY = 'sk_test_image_1';
const SECRET = 'whsec_image_test';
const name = `offramp-image-test-${process.pid}`;
const volume = `${name}-data`;
const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * Starts the image on the volume, port 4010 published on loopback; answers the host port.
 * The admin token in the environment, or (`tokenFile`) in a file mounted as a secret is.
 */
function runContainer(extra: string[], tokenFile?: string): number {
  const token = tokenFile
    ? ['--volume', `${tokenFile}:/run/secrets/offramp-admin-token:ro`, '--env', 'OFFRAMP_EMULATOR_ADMIN_TOKEN_FILE=/run/secrets/offramp-admin-token']
    : ['--env', `OFFRAMP_EMULATOR_ADMIN_TOKEN=${TOKEN}`];
  docker('run', '--detach', '--name', name, '--publish', '127.0.0.1::4010', '--volume', `${volume}:/data`, ...token, IMAGE, ...extra);
  return Number(/:(\d+)$/m.exec(docker('port', name, '4010/tcp'))![1]);
}

/**
 * The container's health once it is no longer starting: Docker runs the check every 5 s, so
 * this looks every half second, up to a bound (a wait for a state, not a timed check).
 */
async function health(): Promise<string> {
  let status = '';
  for (let i = 0; i < 60 && (status === '' || status === 'starting'); i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 500));
    status = docker('inspect', '--format', '{{.State.Health.Status}}', name);
  }
  return status;
}

describe.skipIf(why)(`the emulator image${why ? ` (skipped: ${why})` : ''}`, { timeout: 180_000 }, () => {
  let receiver: Receiver;
  const events: DeliveryInfo[] = [];
  let eventSeen: () => void = () => undefined;
  let port = 0;
  let env: Record<string, string> = {};
  let txId = '';

  beforeAll(() => {
    execFileSync(new URL('../scripts/debian-root.sh', import.meta.url).pathname, ['image'], { stdio: ['ignore', 'ignore', 'inherit'] });
    execFileSync(process.execPath, [new URL('../scripts/build-image.mjs', import.meta.url).pathname], { stdio: ['ignore', 'ignore', 'inherit'] });
  }, 900_000);

  beforeAll(async () => {
    receiver = await startReceiver({
      host: BRIDGE!,
      port: 0,
      secret: SECRET,
      onEvent: (info) => {
        events.push(info);
        eventSeen();
      },
    });
    port = runContainer(['--api-key', KEY, '--webhook-url', `http://${BRIDGE}:${receiver.port}/`, '--webhook-secret', SECRET]);
    env = { ...tempHome().env, OFFRAMP_BASE_URL: `http://127.0.0.1:${port}/api/v1/partner`, OFFRAMP_API_KEY: KEY, OFFRAMP_EMULATOR_ADMIN_TOKEN: TOKEN };
  });

  afterAll(async () => {
    spawnSync('docker', ['rm', '--force', name], { stdio: 'ignore' });
    spawnSync('docker', ['volume', 'rm', '--force', volume], { stdio: 'ignore' });
    await receiver?.close();
  });

  it('is tagged with the version and latest, and holds no node besides the executable', () => {
    expect(docker('image', 'inspect', '--format', '{{.Id}}', 'offramp-emulator:latest')).toBe(docker('image', 'inspect', '--format', '{{.Id}}', IMAGE));
    const found = spawnSync('docker', ['run', '--rm', '--entrypoint', 'sh', IMAGE, '-c', 'command -v node nodejs; ls /usr/local/bin'], { encoding: 'utf8' });
    expect(found.stdout).toBe('offramp\n');
  });

  it('emulator wait from the host answers once it is up, with the admin token', async () => {
    const r = await run(BINARY_X64, ['emulator', 'wait', '--timeout', '20000'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The address the host reached through the published port: the one to hand on to the
    // job's next steps (the emulator itself knows only 0.0.0.0:4010, inside the container).
    expect(r.stdout).toBe(`${env.OFFRAMP_BASE_URL}\n`);
  });

  it('says at start how its control plane is protected', () => {
    const logs = spawnSync('docker', ['logs', name], { encoding: 'utf8' });
    expect(logs.stderr).toContain('control plane: http://0.0.0.0:4010/__emulator/ (admin token required)');
    expect(logs.stderr).toContain('state: /data/emulator.state');
    expect(logs.stderr).not.toContain(TOKEN);
  });

  it('refuses the control plane to a client without the token', async () => {
    const r = await run(BINARY_X64, ['emulator', 'wait', '--timeout', '20000'], { env: { ...env, OFFRAMP_EMULATOR_ADMIN_TOKEN: 'not-the-token-000' } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/admin token/);
  });

  it('smoke passes, and its webhooks reach the receiver on the host, signatures verified', async () => {
    const delivered = new Promise<void>((resolve) => (eventSeen = () => events.some((e) => e.type === 'transaction.completed') && resolve()));
    const r = await run(BINARY_X64, ['smoke'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\d+ checks: \d+ passed, 0 failed/);
    txId = /^smoke: walk to completed, transaction ([0-9a-f-]{36})$/m.exec(r.stdout)![1]!;
    await delivered;
    const completed = events.find((e) => e.type === 'transaction.completed')!;
    expect(completed).toMatchObject({ verified: true, transactionId: txId, httpStatus: 200 });
  });

  it('the health check (offramp emulator wait inside the container) reports healthy', async () => {
    expect(await health()).toBe('healthy');
  });

  it('emulator state export writes the state, and a restart on the same volume keeps it (token from a secret file then)', async () => {
    const file = join(tmpdir(), 'before.state');
    const exported = await run(BINARY_X64, ['emulator', 'state', 'export', file], { env });
    expect(exported.stderr).toMatch(/^state written to .*before\.state \(\d+ bytes\)\n$/);
    expect(exported.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain(txId);

    // docker stop sends SIGTERM: the emulator writes its state and ends.
    docker('stop', name);
    docker('rm', name);
    const tokenFile = join(tmpdir(), 'admin-token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o644 });
    port = runContainer(['--api-key', KEY], tokenFile);
    env.OFFRAMP_BASE_URL = `http://127.0.0.1:${port}/api/v1/partner`;
    expect((await run(BINARY_X64, ['emulator', 'wait', '--timeout', '20000'], { env })).code).toBe(0);
    const logs = spawnSync('docker', ['logs', name], { encoding: 'utf8' }).stderr;
    expect(logs).toMatch(/state: \/data\/emulator\.state \([1-9]\d* transactions/);
    const r = await run(BINARY_X64, ['tx', 'get', txId, '--json'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: txId, status: 'completed' });
    // The health check inside reads the same file.
    expect(await health()).toBe('healthy');
  });

  it('after docker kill (SIGKILL), every create answered 201 is on the volume, and its key replays the same transaction', async () => {
    const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
    const create = (key: string) =>
      fetch(`${env.OFFRAMP_BASE_URL}/transactions`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': key },
        body: JSON.stringify({ fiat_amount: '25000', crypto_currency: 'usdt', network: 'bep20', merchant_reference: `image-kill-${key}` }),
      });
    const answered = new Map<string, string>();
    // Four creators at once, the kill the moment the last answer of a round came.
    await Promise.all(
      [0, 1, 2, 3].map(async (c) => {
        for (let i = 0; i < 10; i++) {
          const res = await create(`kill-${c}-${i}`);
          if (res.status === 201) answered.set(`kill-${c}-${i}`, ((await res.json()) as { data: { id: string } }).data.id);
        }
      }),
    );
    expect(answered.size).toBe(40);
    docker('kill', name);
    docker('rm', name);
    port = runContainer(['--api-key', KEY]);
    env.OFFRAMP_BASE_URL = `http://127.0.0.1:${port}/api/v1/partner`;
    expect((await run(BINARY_X64, ['emulator', 'wait', '--timeout', '20000'], { env })).code).toBe(0);
    for (const [key, id] of answered) {
      const res = await create(key);
      expect(res.status).toBe(201);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(((await res.json()) as { data: { id: string } }).data.id).toBe(id);
    }
  });

  it('refuses to start without an admin token, and says why', () => {
    const r = spawnSync('docker', ['run', '--rm', IMAGE], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('OFFRAMP_EMULATOR_ADMIN_TOKEN');
  });
});
