// The production guard (nothing is sent) and the one-command demo, in process (main →
// command → client → server): neither needs a process of its own.
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { emulatorFor } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { scriptedServer } from '../helpers/server.js';

describe('production guard', () => {
  it('refuses simulate, simulate walk and smoke on a production profile, exit 3, before any request', async () => {
    const server = await scriptedServer([]);
    const home = tempHome();
    try {
      const add = await runMain(['profile', 'add', 'live', '--env', 'production', '--base-url', server.baseUrl, '--api-key-stdin'], {
        env: home.env,
        stdin: 'sk_live_guard_0000001\n',
      });
      expect(add.code).toBe(0);
      const runs = await Promise.all(
        [['simulate', randomUUID(), 'deposit.detected'], ['simulate', 'walk'], ['smoke', '--junit', join(home.dir, 'smoke.xml')]].map((args) =>
          runMain(['--profile', 'live', ...args], { env: home.env }),
        ),
      );
      for (const r of runs) {
        expect(r.code).toBe(3);
        // Nothing was sent, so nothing was refused as unauthorized: the guard names itself.
        expect(r.stderr).toMatch(/^error: PRODUCTION: .* is staging-only and profile "live" is production; nothing was sent\nhint: use a staging or local profile/m);
      }
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('an emulator in production mode answers the simulator with 403 (exit 3)', async () => {
    const emu = await emulatorFor({ mode: 'production' });
    try {
      const r = await runMain(['simulate', randomUUID(), 'deposit.detected'], { env: emu.env });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/simulation is disabled in production/);
    } finally {
      await emu.close();
    }
  });
});

describe('offramp demo', () => {
  it('runs the whole tour, exits 0 and touches no profile', async () => {
    const home = tempHome();
    const r = await runMain(['demo'], { env: home.env });
    const out = r.stdout + r.stderr;
    expect(r.stderr).not.toMatch(/error:/);
    expect(r.code).toBe(0);
    // Each step...
    for (const step of ['quote', 'create', 'deposit.detected', 'deposit.confirmed', 'transaction.completed', 'payout.settled']) {
      expect(r.stderr).toMatch(new RegExp(`^\\[\\d/6\\] ${step.replace('.', '\\.')} `, 'm'));
    }
    // ...each webhook as it arrived, signature verified...
    for (const type of ['transaction.created', 'deposit.detected', 'deposit.confirmed', 'transaction.completed', 'payout.settled']) {
      expect(r.stderr).toMatch(new RegExp(`↳ webhook ${type.replace('.', '\\.')} +signature verified`));
    }
    expect(r.stderr).toContain('5 webhooks received, each signature verified');
    // ...the history and the ledger row.
    expect(r.stdout).toContain('status history');
    expect(r.stdout).toMatch(/order_filled → completed .* order:settled/);
    expect(r.stdout).toMatch(/ledger row\n +transaction +[0-9a-f-]{36}\n +reference +walk-/);
    expect(r.stdout).toMatch(/amount +50000\.00 NGN/);
    // Secrets are generated and never shown; no config was written.
    expect(out).not.toMatch(/sk_demo_|whsec_demo_/);
    const configDir = home.env.OFFRAMP_CONFIG_DIR!;
    expect(existsSync(configDir) ? readdirSync(configDir) : []).toEqual([]);
  });
});
