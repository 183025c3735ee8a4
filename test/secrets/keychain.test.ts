// Where keys live (docs/configuration.md, "Where keys live"). End to end against a real
// Secret Service: gnome-keyring unlocked inside its own D-Bus session, the built CLI run
// there, and what it stored read back with secret-tool, as a user would check. The rest
// in process, where no D-Bus session exists: the file, said so, and the key command.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runKeyCommand } from '../../src/lib/config/keys.js';
import { BIN, tempHome } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';

const KEY = 'sk_test_keychain_5678';
let emu: RunningEmulator;
/** A transaction of the key's partner, for `tx get`. */
let txId: string;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [KEY] });
  const res = await fetch(`${emu.url}/transactions`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'idempotency-key': 'keychain-test-1' },
    body: JSON.stringify({ fiat_amount: '5000', crypto_currency: 'usdt', network: 'bep20', merchant_reference: 'keychain-test-1' }),
  });
  txId = ((await res.json()) as { data: { id: string } }).data.id;
});
afterAll(() => emu.close());

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const missing = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'].filter((c) => !has(c));
// Loaded as the CLI loads it: required by a Node process from the project.
const keyringLoads = spawnSync(process.execPath, ['-e', "require('@napi-rs/keyring')"], { cwd: new URL('../..', import.meta.url).pathname }).status === 0;
const skip = process.platform !== 'linux' || missing.length > 0 || !keyringLoads;
if (skip) {
  console.warn(`skipping the Secret Service test: ${process.platform !== 'linux' ? 'not Linux' : missing.length ? `${missing.join(', ')} missing (apt-get install gnome-keyring libsecret-tools dbus)` : '@napi-rs/keyring does not load here'}`);
}

describe.skipIf(skip)('a real Secret Service (gnome-keyring in a D-Bus session)', () => {
  it('profile add → no key in the file → tx get works → secret-tool finds it; migrate and --api-key-command too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-keyring-'));
    const cfg = join(dir, 'config');
    const script = `
      echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
      run() { n=$1; shift; "$@" >"$D/$n.out" 2>"$D/$n.err"; echo $? >"$D/$n.code"; }
      offramp() { "$NODE" "$BIN" "$@"; }
      printf '%s\\n' "$KEY" | run add offramp profile add kc --env local --base-url "$URL" --api-key-stdin
      run get offramp --profile kc tx get "$TX" --json
      run show offramp profile show kc
      run lookup secret-tool lookup service offramp-cli username "kc@$CFG/config.json"
      printf '%s\\n' "$KEY" | run addfile offramp profile add old --env local --base-url "$URL" --api-key-stdin --insecure-storage
      cp "$CFG/config.json" "$D/before-migrate.json"
      run migrate offramp profile migrate old
      run getold offramp --profile old tx get "$TX" --json
      run lookupold secret-tool lookup service offramp-cli username "old@$CFG/config.json"
      printf '%s' "$KEY" | secret-tool store --label=team service team-vault username offramp
      run addcmd offramp profile add cmd --env local --base-url "$URL" --api-key-command 'secret-tool lookup service team-vault username offramp'
      run getcmd offramp --profile cmd tx get "$TX" --json --verbose
      run doctor offramp --profile kc doctor --json
      run remove offramp profile remove kc
      run lookupgone secret-tool lookup service offramp-cli username "kc@$CFG/config.json"
    `;
    const env = { PATH: process.env.PATH, ...(process.env.NODE_PATH ? { NODE_PATH: process.env.NODE_PATH } : {}), HOME: dir, TMPDIR: process.env.TMPDIR, CI: 'true', NO_COLOR: '1', D: dir, CFG: cfg, OFFRAMP_CONFIG_DIR: cfg, NODE: process.execPath, BIN, KEY, URL: emu.url, TX: txId };
    // Async: the emulator answering the CLI runs in this process.
    await new Promise<void>((resolve, reject) => execFile('dbus-run-session', ['--', 'sh', '-c', script], { env, timeout: 60_000 }, (err) => (err ? reject(err) : resolve())));
    const step = (n: string) => ({ code: Number(readFileSync(join(dir, `${n}.code`), 'utf8')), out: readFileSync(join(dir, `${n}.out`), 'utf8'), err: readFileSync(join(dir, `${n}.err`), 'utf8') });

    const add = step('add');
    expect(add.code, add.err).toBe(0);
    expect(add.err).toContain('key stored in the system keychain');
    const got = step('get');
    expect(got.code, got.err).toBe(0);
    expect(JSON.parse(got.out)).toMatchObject({ id: txId, merchant_reference: 'keychain-test-1' });
    expect(step('show').out).toMatch(/api key\s+in the system keychain/);
    expect(step('lookup').out).toBe(KEY);

    expect(readFileSync(join(dir, 'before-migrate.json'), 'utf8')).toContain(KEY);
    expect(step('migrate').err).toContain('Moved the key of profile "old" to the system keychain.');
    expect(step('getold').code, step('getold').err).toBe(0);
    expect(step('lookupold').out).toBe(KEY);

    expect(step('addcmd').code, step('addcmd').err).toBe(0);
    const getcmd = step('getcmd');
    expect(getcmd.code, getcmd.err).toBe(0);
    expect(getcmd.err).toContain('> GET');
    expect(getcmd.err).not.toContain(KEY);

    expect(JSON.parse(step('doctor').out)).toEqual(expect.arrayContaining([{ name: 'key storage', status: 'pass', detail: 'keychain (the system credential store)' }]));
    expect(step('remove').code).toBe(0);
    expect(step('lookupgone').out).toBe('');

    // No key of any profile is left in the file.
    expect(readFileSync(join(cfg, 'config.json'), 'utf8')).not.toContain(KEY);
  }, 90_000);
});

describe('no credential store here (no D-Bus session)', () => {
  it('profile add keeps the key in the file and says so; show, list and doctor say where it lives', async () => {
    const home = tempHome();
    const add = await runMain(['profile', 'add', 'st', '--env', 'local', '--base-url', emu.url, '--api-key-stdin'], { env: home.env, stdin: `${KEY}\n` });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toContain('note: no system keychain here (no D-Bus session, so no Secret Service): the key is kept in the config file');
    expect(add.stderr).toContain('key stored in the config file');
    expect(JSON.parse((await runMain(['profile', 'list', '--json'], { env: home.env })).stdout)).toEqual([expect.objectContaining({ name: 'st', api_key: 'sk_…5678', api_key_in: 'file' })]);
    expect((await runMain(['profile', 'show'], { env: home.env })).stdout).toMatch(/api key\s+sk_…5678 {2}\(in the config file\)/);

    const migrate = await runMain(['profile', 'migrate'], { env: home.env });
    expect(migrate.code).toBe(3);
    expect(migrate.stderr).toContain('no system keychain here (no D-Bus session, so no Secret Service); nothing was moved');
    expect(readFileSync(join(home.configDir, 'config.json'), 'utf8')).toContain(KEY);
  });
});

describe('--api-key-command', () => {
  const withCommand = async (command: string): Promise<Record<string, string>> => {
    const home = tempHome();
    const env = { ...home.env, PATH: process.env.PATH ?? '' };
    const add = await runMain(['profile', 'add', 'vault', '--env', 'local', '--base-url', emu.url, '--api-key-command', command], { env });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toContain('the key is read from its command when needed');
    return env;
  };

  it('runs the command when a request needs the key: trimmed, never in the file, redacted in the trace', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'offramp-keycmd-')), 'key');
    writeFileSync(file, `  ${KEY}\n\n`);
    const env = await withCommand(`cat '${file}'`);
    const listed = await runMain(['tx', 'list', '--json', '--verbose'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).not.toContain(KEY);
    const config = readFileSync(join(env.OFFRAMP_CONFIG_DIR!, 'config.json'), 'utf8');
    expect(config).not.toContain(KEY);
    expect(JSON.parse(config).profiles.vault.apiKeyCommand).toBe(`cat '${file}'`);
    const doctor = await runMain(['doctor', '--json'], { env });
    expect(JSON.parse(doctor.stdout)).toEqual(expect.arrayContaining([{ name: 'key storage', status: 'pass', detail: 'command (run when a request needs the key)' }]));
    expect((await runMain(['profile', 'show'], { env })).stdout).toContain(`printed by: cat '${file}'`);
    expect(JSON.parse((await runMain(['profile', 'show', '--json'], { env })).stdout)).toMatchObject({ api_key: null, api_key_in: 'command', api_key_command: `cat '${file}'` });
  });

  it('a failing command is one error naming the profile (exit 3), never its output', async () => {
    const env = await withCommand(`echo ${KEY}-leaked; echo oops >&2; exit 4`);
    const r = await runMain(['tx', 'list'], { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('profile "vault": its key command failed (exit 4)');
    expect(r.stderr).not.toContain('leaked');
    expect(r.stderr).not.toContain('oops');
    const empty = await runMain(['tx', 'list'], { env: await withCommand('true') });
    expect(empty.code).toBe(3);
    expect(empty.stderr).toContain('profile "vault": its key command printed nothing');
  });

  it('a command past its deadline is stopped, with whatever it started', async () => {
    await expect(runKeyCommand('slow', 'sleep 30 & wait', process.env, 50)).rejects.toThrow('profile "slow": its key command did not finish within 50 ms');
  });

  // Gone, or a zombie no one has reaped yet (a container's first process may not).
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
    } catch {
      return false;
    }
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  };

  // Ctrl-C (SIGINT) and SIGTERM the CLI handles: it stops the command on its way out. SIGKILL
  // it cannot: the command's own watch on the CLI (src/lib/config/keys.ts) ends it then.
  it.skipIf(process.platform === 'win32').each(['SIGINT', 'SIGTERM', 'SIGKILL'] as const)('the CLI ended by %s while its key command runs: the command and what it started go too', async (signal) => {
    const pids = join(mkdtempSync(join(tmpdir(), 'offramp-keycmd-')), 'pids');
    const env = await withCommand(`sleep 30 & echo $! > '${pids}'; wait`);
    const child = spawn(process.execPath, [BIN, 'tx', 'list'], { env: { ...env, CI: 'true' }, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    const pid = await vi.waitFor(
      () => {
        const n = existsSync(pids) ? Number(readFileSync(pids, 'utf8').trim()) : 0;
        if (!n) throw new Error('the key command has not started yet');
        return n;
      },
      { timeout: 10_000, interval: 25 },
    );
    expect(alive(pid)).toBe(true);
    child.kill(signal);
    expect(await exited).toBe(signal);
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 5000, interval: 25 });
  });

  it('does not go with --api-key-stdin or --insecure-storage', async () => {
    const r = await runMain(['profile', 'add', 'x', '--env', 'local', '--api-key-command', 'true', '--insecure-storage']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--api-key-command stores a command, not a key: it does not go with --insecure-storage');
  });
});
