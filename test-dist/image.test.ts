// The emulator image (docker/Dockerfile, npm run build:image), built on the local base
// (scripts/debian-root.sh image) and driven from this host as a partner's CI would: a
// published port, a state volume, the admin token in the environment. The webhooks leave
// the container for a receiver this test runs on the host's bridge address (docker0), the
// one address of the host a container reaches; a container restarted on the volume keeps
// the state, after `docker stop` and after `docker kill` alike. docs/install.md's GitHub Actions
// recipe runs as written: a service on a network of its own, and smoke on the host receiving
// its webhooks at --receive-at, the network's gateway; so does the GitLab CI one: the job in a
// container beside the service, reaching it by its alias.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
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
const network = `${name}-net`;
type GithubJob = { services: Record<string, { image: string }>; env: Record<string, string>; steps: { run?: string }[] };
type GitlabJob = { image: string; services: { name: string; alias: string; command: string[] }[]; variables: Record<string, string>; script: string[] };
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
    spawnSync('docker', ['network', 'rm', network], { stdio: 'ignore' });
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

  it('answers a CI service alias (offramp-emulator, emulator) from another container, at a published port of any number, and no other name', async () => {
    docker('network', 'create', network);
    docker('network', 'connect', '--alias', 'offramp-emulator', '--alias', 'emulator', '--alias', 'elsewhere', network, name);
    // Plain http to a name, with the admin token: allowed by name only (OFFRAMP_ALLOW_HTTP_HOSTS).
    const waitFor = (host: string, allowHttp = host) =>
      spawnSync('docker', ['run', '--rm', '--network', network, '--env', `OFFRAMP_EMULATOR_ADMIN_TOKEN=${TOKEN}`, '--env', `OFFRAMP_ALLOW_HTTP_HOSTS=${allowHttp}`, '--entrypoint', 'offramp', IMAGE, 'emulator', 'wait', '--timeout', '20000', '--base-url', `http://${host}:4010/api/v1/partner`], { encoding: 'utf8' });
    const inClear = waitFor('offramp-emulator', 'emulator');
    expect(inClear.status).toBe(2);
    expect(inClear.stderr).toContain('the admin token would cross the network in clear');
    for (const host of ['offramp-emulator', 'emulator']) {
      const r = waitFor(host);
      expect(r.stderr, host).toBe('');
      expect(r.stdout).toBe(`http://${host}:4010/api/v1/partner\n`);
    }
    const refused = waitFor('elsewhere');
    expect(refused.status).toBe(3);
    expect(refused.stderr).toContain('--allow-host');
    // A rebound DNS name at the published port (the host's 127.0.0.1:<random>): refused, unread.
    const rebound = await new Promise<number | undefined>((resolve, reject) =>
      httpGet({ host: '127.0.0.1', port, path: '/api/v1/partner/transactions', headers: { host: `evil.example:${port}`, 'x-api-key': KEY } }, (res) => resolve(res.resume().statusCode)).on('error', reject),
    );
    expect(rebound).toBe(403);
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

  it("docs/install.md's GitHub Actions recipe: smoke receives the service's webhooks at --receive-at (the network's gateway), signatures verified", async () => {
    // The recipe as written: its service (image, token), the job's env, and its smoke step's
    // script, run on this host as on the runner; the service on a network of its own, its
    // port published on loopback (any free one here, where 4010 may be taken).
    const doc = readFileSync(new URL('../docs/install.md', import.meta.url), 'utf8');
    const workflow = [...doc.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => parse(m[1]!) as { jobs?: Record<string, GithubJob> }).find((b) => b.jobs)!;
    const job = Object.values(workflow.jobs!)[0]!;
    const [serviceId, service] = Object.entries(job.services)[0]!;
    const step = job.steps.find((st) => st.run?.includes('--receive-at'))!.run!;
    const network = `${name}-ci`;
    const svc = `${network}-svc`;
    docker('network', 'create', network);
    try {
      docker('run', '--detach', '--name', svc, '--network', network, '--publish', '127.0.0.1::4010', '--env', `OFFRAMP_EMULATOR_ADMIN_TOKEN=${TOKEN}`, service.image.replace(/^.*\//, ''));
      const hostPort = Number(/:(\d+)$/m.exec(docker('port', svc, '4010/tcp'))![1]);
      const bin = mkdtempSync(join(tmpdir(), 'offramp-ci-bin-'));
      symlinkSync(BINARY_X64, join(bin, 'offramp'));
      const jobEnv = { ...tempHome().env, ...job.env, OFFRAMP_BASE_URL: job.env.OFFRAMP_BASE_URL!.replace(':4010/', `:${hostPort}/`), OFFRAMP_EMULATOR_ADMIN_TOKEN: TOKEN, PATH: `${bin}:${process.env.PATH}` };
      expect((await run(BINARY_X64, ['emulator', 'wait', '--timeout', '30000'], { env: jobEnv })).code).toBe(0);
      const script = step.replaceAll(`\${{ job.services.${serviceId}.network }}`, network).replace('--report github', '--json');
      const r = await run('sh', ['-c', script], { env: jobEnv });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^Deliveries: received by smoke at http:\/\/\d+\.\d+\.\d+\.\d+:8788\/ for this run/m);
      const deliveries = (JSON.parse(r.stdout) as { checks: { id: string; status: string; detail: string }[] }).checks.find((c) => c.id === 'deliveries');
      expect(deliveries).toMatchObject({ status: 'pass', detail: "5 delivered to smoke's receiver, each signature verified with the emulator's secret (hmac-sha256-hex)" });
      expect(r.stderr).toContain('The emulator records webhooks only again, as before.');
    } finally {
      spawnSync('docker', ['rm', '--force', svc], { stdio: 'ignore' });
      spawnSync('docker', ['network', 'rm', network], { stdio: 'ignore' });
    }
  });

  it("docs/install.md's GitLab CI recipe: the job reaches the service by its alias over plain http (OFFRAMP_ALLOW_HTTP_HOSTS), smoke receives its webhooks at hostname -i", () => {
    // The recipe as written: its service (image, alias, command) on a network with the job's
    // container, the job's variables handed to both (GitLab passes them to services), and its
    // script but ./your-tests. The before_script is skipped: it downloads the executable (no
    // network here), which is bind-mounted where it would install it instead.
    const doc = readFileSync(new URL('../docs/install.md', import.meta.url), 'utf8');
    const recipe = [...doc.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => parse(m[1]!) as Record<string, GitlabJob>).find((b) => !('jobs' in b))!;
    const job = Object.values(recipe)[0]!;
    const service = job.services[0]!;
    // $NAME in a variable is a project CI/CD variable: here, the admin token.
    const variables = Object.entries(job.variables).flatMap(([k, v]) => ['--env', `${k}=${v.replace(/\$(\w+)/g, (_, ref: string) => ({ OFFRAMP_EMULATOR_ADMIN_TOKEN: TOKEN })[ref] ?? '')}`]);
    const script = job.script.filter((line) => line !== './your-tests');
    expect(script).toHaveLength(job.script.length - 1);
    const network = `${name}-gitlab`;
    const svc = `${network}-svc`;
    docker('network', 'create', network);
    try {
      docker('run', '--detach', '--name', svc, '--network', network, '--network-alias', service.alias, ...variables, service.name.replace(/^.*\//, ''), ...service.command);
      const r = spawnSync('docker', ['run', '--rm', '--network', network, '--volume', `${BINARY_X64}:/usr/local/bin/offramp:ro`, ...variables, job.image, 'sh', '-ec', script.join('\n')], { encoding: 'utf8', timeout: 120_000 });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(`${job.variables.OFFRAMP_BASE_URL}\n`);
      expect(r.stderr).toMatch(/^Deliveries: received by smoke at http:\/\/\d+\.\d+\.\d+\.\d+:8788\/ for this run/m);
      expect(r.stdout).toMatch(/^PASS {2}deliveries: .*\n {6}5 delivered to smoke's receiver, each signature verified with the emulator's secret \(hmac-sha256-hex\)$/m);
      expect(r.stdout).toMatch(/^(\d+) checks: \1 passed, 0 failed, 0 skipped$/m);
      expect(r.stdout + r.stderr).not.toContain(TOKEN);
    } finally {
      spawnSync('docker', ['rm', '--force', svc], { stdio: 'ignore' });
      spawnSync('docker', ['network', 'rm', network], { stdio: 'ignore' });
    }
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

  it("holds nothing of a build host's /proc or /sys: its files, listed by docker export, have none below proc/ or sys/", () => {
    expect(listing(IMAGE).filter((f) => /^(proc|sys)\/./.test(f))).toEqual([]);
    // The listing is the image's whole root: its mount points, and the executable.
    expect(listing(IMAGE)).toEqual(expect.arrayContaining(['proc/', 'sys/', 'usr/local/bin/offramp']));
  });
});

/** Every path in the image `tag`, from a container created (never started) and exported. */
function listing(tag: string): string[] {
  const id = docker('create', tag, '/bin/true');
  try {
    return execFileSync('sh', ['-c', 'docker export "$1" | tar -t', 'sh', id], { encoding: 'utf8', maxBuffer: 1 << 26 }).split('\n').filter(Boolean);
  } finally {
    docker('rm', id);
  }
}

describe.skipIf(!DOCKER)('a base tag is checked before it is reused (scripts/debian-root.sh)', () => {
  const script = new URL('../scripts/debian-root.sh', import.meta.url).pathname;
  const polluted = `offramp-test-polluted-base:${process.pid}`;
  afterAll(() => spawnSync('docker', ['image', 'rm', '--force', polluted], { stdio: 'ignore' }));

  it("a tag holding a host's /proc is refused by check, so `image` would make it again; the local base passes", { timeout: 900_000 }, () => {
    const root = mkdtempSync(join(tmpdir(), 'offramp-polluted-'));
    mkdirSync(join(root, 'proc', '1'), { recursive: true });
    writeFileSync(join(root, 'proc', '1', 'cmdline'), 'someone --password hunter2');
    mkdirSync(join(root, 'etc'));
    writeFileSync(join(root, 'etc', 'os-release'), 'ID=debian\n');
    execFileSync('sh', ['-c', 'tar -C "$1" -c . | docker import - "$2"', 'sh', root, polluted], { stdio: 'ignore' });
    const bad = spawnSync(script, ['check', polluted], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(`${polluted} holds what a build host had mounted (e.g. proc/1/ proc/1/cmdline )`);
    execFileSync(script, ['image'], { stdio: ['ignore', 'ignore', 'inherit'] });
    const base = spawnSync(script, ['check', 'debian:bookworm-slim'], { encoding: 'utf8' });
    expect(base.stderr).toBe('');
    expect(base.status).toBe(0);
  });
});
