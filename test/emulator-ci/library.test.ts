// `import { startEmulator } from 'offramp-cli/emulator'` as a partner's test suite does it:
// the packed tarball installed (offline: the package needs no dependency) into a fresh
// project, imported from ESM and from CommonJS, an emulator started and driven, and the
// shipped declarations type-checked strictly, with no library check skipped.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { packed } from '../helpers/pack.js';

const root = new URL('../..', import.meta.url).pathname;
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const node = (args: string[], cwd: string) => execFileSync(process.execPath, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR } });

let project: string;

beforeAll(async () => {
  const { tarball } = await packed();
  project = join(mkdtempSync(join(tmpdir(), 'offramp-lib-')), 'partner-tests');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'partner-tests', version: '1.0.0', private: true, type: 'module' }));
  // --ignore-scripts: the build (prepare) must not rerun under the other tests' feet; dist/ is built.
  npm(['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], project);
}, 60_000);

describe('offramp-cli/emulator from the packed tarball', () => {
  it('installs alone: the package brings no dependency with it but the optional keychain binding', () => {
    // @napi-rs/keyring is native, so not bundled: an optional dependency (its prebuilt binary
    // for this platform comes with it), which the emulator never loads.
    const installed = readdirSync(join(project, 'node_modules')).filter((n) => !n.startsWith('.'));
    expect(installed.filter((n) => n !== '@napi-rs')).toEqual(['offramp-cli']);
    if (installed.includes('@napi-rs')) for (const n of readdirSync(join(project, 'node_modules/@napi-rs'))) expect(n).toMatch(/^keyring(-|$)/);
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules/offramp-cli/package.json'), 'utf8'));
    expect(pkg.exports['./emulator']).toEqual({ types: './dist/emulator.d.cts', default: './dist/emulator.js' });
  });

  it('is imported from ESM and drives an emulator: create, faults, clock, reset, state', () => {
    writeFileSync(
      join(project, 'drive.mjs'),
      `
      import { startEmulator, BASE_PATH, DEFAULT_API_KEY } from 'offramp-cli/emulator';
      const emu = await startEmulator({ port: 0 });
      const headers = { 'x-api-key': DEFAULT_API_KEY, 'content-type': 'application/json' };
      const create = (ref) => fetch(emu.url + '/transactions', { method: 'POST', headers: { ...headers, 'idempotency-key': ref },
        body: JSON.stringify({ fiat_amount: '5000', crypto_currency: 'usdt', network: 'bep20', merchant_reference: ref }) });
      const tx = (await (await create('lib-1')).json()).data;
      emu.addFault({ route: 'GET /transactions/*', next: 1, status: 503 });
      const faulted = (await fetch(emu.url + '/transactions/' + tx.id, { headers })).status;
      const advanced = emu.advanceClock('31m');
      const status = (await (await fetch(emu.url + '/transactions/' + tx.id, { headers })).json()).data.status;
      const exported = emu.exportState();
      emu.reset();
      const afterReset = (await fetch(emu.url + '/transactions/' + tx.id, { headers })).status;
      const imported = emu.importState(exported);
      const health = (await (await fetch(emu.controlUrl + '/health')).json()).data.status;
      await emu.close();
      console.log(JSON.stringify({ base: BASE_PATH, url: emu.url, faulted, expired: advanced.expired_transactions, status, afterReset, imported, health }));
      `,
    );
    const out = JSON.parse(node(['drive.mjs'], project));
    expect(out).toMatchObject({ base: '/api/v1/partner', faulted: 503, expired: 1, status: 'expired', afterReset: 404, health: 'ok' });
    expect(out.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/partner$/);
    expect(out.imported).toMatchObject({ partners: 1, transactions: 1, events: 2 });
  });

  it('is required from CommonJS too, and a state file works from there', () => {
    const state = join(project, 'suite.state');
    writeFileSync(
      join(project, 'drive.cjs'),
      `
      const { startEmulator, StateFileError } = require('offramp-cli/emulator');
      (async () => {
        const emu = await startEmulator({ statePath: ${JSON.stringify(state)} });
        emu.advanceClock(60000);
        await emu.close();
        const again = await startEmulator({ statePath: ${JSON.stringify(state)} });
        const offset = again.summary().clock_offset_ms;
        await again.close();
        console.log(JSON.stringify({ offset, isError: new StateFileError('x') instanceof Error }));
      })();
      `,
    );
    expect(JSON.parse(node(['drive.cjs'], project))).toEqual({ offset: 60_000, isError: true });
  });

  it('ships declarations that type-check a partner’s test file strictly, and catch a wrong option', () => {
    writeFileSync(
      join(project, 'emulator.test.ts'),
      `
      import { startEmulator, createManualClock, StateFileError, type RunningEmulator, type FaultRule, type StateSummary } from 'offramp-cli/emulator';
      let emu: RunningEmulator;
      export async function setup(): Promise<void> {
        emu = await startEmulator({ port: 0, clock: createManualClock(), webhookChaos: { duplicate: 0.2, delayMs: [0, 50] }, adminToken: 'token-123456' });
        const rule: FaultRule = emu.addFault({ route: 'POST /transactions', next: 1, dropAfterCommit: true });
        emu.addFault({ webhook: true, eventType: 'transaction.created', status: 500 });
        const summary: StateSummary = emu.importState(emu.exportState());
        const ok: boolean = rule.remaining === 1 && summary.partners === 1 && !(new StateFileError('x') instanceof TypeError);
        emu.advanceClock('31m');
        await emu.flush();
        if (!ok) throw new Error('unexpected');
      }
      // @ts-expect-error not an option of startEmulator
      await startEmulator({ prot: 4010 });
      // @ts-expect-error a route fault needs its route
      emu!.addFault({ status: 503 });
      `,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2023', 'dom'], strict: true, skipLibCheck: false, noEmit: true, types: [] },
        files: ['emulator.test.ts'],
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    expect(() => node([tsc, '-p', 'tsconfig.json'], project)).not.toThrow();
  });
});
