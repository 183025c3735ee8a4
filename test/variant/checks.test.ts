// The CI checks (`smoke`, `reconcile`) through `main` in process against the variant
// server, whose lists, filter names and status words differ from the emulator's. A check
// must pass where the service is consistent and never pass by misreading it.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { startVariant, VARIANT, type RunningVariant } from '../helpers/variant-server.js';

let variant: RunningVariant;
let hook: Server;

beforeAll(async () => {
  // The partner's endpoint: takes every delivery, so events end up delivered ("succeeded").
  hook = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  variant = await startVariant({ webhookUrl: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook` });
});

afterAll(async () => {
  await variant.close();
  await new Promise((r) => hook.close(r));
});

const env = () => ({ OFFRAMP_API_KEY: variant.apiKey, OFFRAMP_BASE_URL: variant.baseUrl });

async function profileWith(service: object) {
  const home = tempHome();
  const add = await runMain(['profile', 'add', 'variant', '--env', 'staging', '--base-url', variant.baseUrl, '--api-key-stdin'], { env: home.env, stdin: `${variant.apiKey}\n` });
  expect(add.code, add.stderr).toBe(0);
  const file = join(home.configDir, 'config.json');
  const config = JSON.parse(readFileSync(file, 'utf8'));
  config.profiles.variant.service = service;
  writeFileSync(file, JSON.stringify(config));
  return { ...home.env, OFFRAMP_PROFILE: 'variant' };
}

async function settled(): Promise<void> {
  await vi.waitUntil(
    async () => {
      const res = await fetch(`${variant.baseUrl}/webhooks/events?limit=100`, { headers: { 'x-api-key': variant.apiKey } });
      const events = ((await res.json()) as { data: { delivery_status: string }[] }).data;
      return events.length > 0 && events.every((e) => e.delivery_status === VARIANT.deliveryStatus.delivered);
    },
    { timeout: 10_000, interval: 25 },
  );
}

describe('smoke and reconcile against the variant', { timeout: 60_000 }, () => {
  it('smoke passes: the walk, history, events and ledger row all check out', async () => {
    const r = await runMain(['smoke', '--json'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { ok?: boolean; checks: { id: string; status: string; detail: string }[] };
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
    // Its delivery words are not the emulator's: the deliveries are not judged on a guess...
    expect(report.checks.find((c) => c.id === 'deliveries')).toMatchObject({ status: 'skip', detail: expect.stringMatching(/^skipped: the service reports delivery_status /) });
    // ... and are, once the profile names them.
    const told = await profileWith({ deliveredStatus: VARIANT.deliveryStatus.delivered, failedStatus: VARIANT.deliveryStatus.failed });
    const judged = await runMain(['smoke', '--json'], { env: told });
    expect(judged.code, judged.stderr).toBe(0);
    expect((JSON.parse(judged.stdout) as typeof report).checks.find((c) => c.id === 'deliveries')).toMatchObject({ status: 'pass', detail: '5 delivered' });
  });

  it('reconcile does not take an unknown delivery word for a finding of its own, and is clean once told the words', async () => {
    await settled();
    const day = new Date().toISOString().slice(0, 10);
    const unknown = await runMain(['reconcile', '--from', day, '--to', day, '--json'], { env: env() });
    expect(unknown.code).toBe(8);
    const report = JSON.parse(unknown.stdout) as { discrepancies: { kind: string }[] };
    expect(new Set(report.discrepancies.map((d) => d.kind))).toEqual(new Set(['event_status_unknown']));

    const told = await profileWith({ deliveredStatus: VARIANT.deliveryStatus.delivered, failedStatus: VARIANT.deliveryStatus.failed });
    const clean = await runMain(['reconcile', '--from', day, '--to', day, '--json'], { env: told });
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ clean: true });
  });
});
