// The fault run of issue 4: the emulator at fault rate 0.3 (500s, 503s, and connections
// dropped after the create committed), 200 `tx create` calls with distinct references,
// 4 at a time, each the whole CLI path in process (main → command → client → emulator on
// loopback; nothing here needs a process of its own). They must end with exactly 200
// transactions, none twice, and every call must exit 0 or tell the truth: a failed call
// says the outcome is unknown or that nothing was created (checked against the emulator),
// and its printed command, rerun as is, finishes the job with the same idempotency key.
//
// `--retries 1` (instead of 3) makes the client give up sooner, so the command's own
// recovery (lookup by reference, second create with the same key) does real work here.
import pLimit from 'p-limit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain, type MainResult } from '../helpers/main.js';
import { partner } from './partner.js';

const CALLS = 200;
let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => {
  emu = await emulatorFor({ faultRate: 0.3, seed: 20261122 });
});
afterAll(async () => {
  await emu.close();
});

type Outcome = { ref: string; amount: string; id: string; runs: MainResult[] };

it(`${CALLS} creates at fault rate 0.3 make exactly ${CALLS} transactions`, { timeout: 300_000 }, async () => {
  const api = partner(emu.emulator.url, TEST_KEY);
  const limit = pLimit(4);
  const createOne = async (i: number): Promise<Outcome> => {
    const ref = `fault-run-${i}`;
    const amount = `${1000 + i}.50`;
    let args = ['--retries', '1', 'tx', 'create', '--fiat-amount', amount, '--token', 'usdt', '--network', 'bep20', '--ref', ref];
    const runs: MainResult[] = [];
    for (;;) {
      const r = await runMain([...args, '--json'], { env: emu.env });
      runs.push(r);
      if (r.code === 0) break;
      // Not 0: it must say what happened, and what it says must be true.
      expect([1, 7], r.stderr).toContain(r.code);
      const error = r.stderr.trim().split('\n').pop()!;
      const said = JSON.parse(error).error as { code: string; message: string };
      expect(['OUTCOME_UNKNOWN', 'NOT_CREATED'], r.stderr).toContain(said.code);
      if (said.code === 'NOT_CREATED') expect((await api.call('GET', `/transactions/reference/${ref}`)).status).toBe(404);
      const command = /retry safely with: offramp (.*)$/.exec(said.message)?.[1];
      expect(command, said.message).toBeDefined();
      const key = /^idempotency-key: (\S+)$/m.exec(r.stderr)?.[1];
      expect(command).toContain(`--idempotency-key ${key}`);
      args = command!.split(' ');
      expect(runs.length, 'reruns of the printed command').toBeLessThan(6);
    }
    const last = runs.at(-1)!;
    const tx = JSON.parse(last.stdout);
    expect(tx.merchant_reference).toBe(ref);
    return { ref, amount, id: tx.id, runs };
  };
  const outcomes = await Promise.all(Array.from({ length: CALLS }, (_, i) => limit(() => createOne(i))));

  const stored = await api.all();
  expect(stored).toHaveLength(CALLS);
  expect(new Set(stored.map((t) => t.id)).size).toBe(CALLS);
  expect(new Set(stored.map((t) => String(t.merchant_reference).toLowerCase())).size).toBe(CALLS);
  const byRef = new Map(stored.map((t) => [t.merchant_reference, t]));
  for (const o of outcomes) {
    const t = byRef.get(o.ref);
    expect(t?.id, o.ref).toBe(o.id);
    expect(Number(t?.amount)).toBe(Number(o.amount));
  }
  // The faults did reach the command's own recovery, not only the client's retries.
  const stderr = outcomes.flatMap((o) => o.runs.map((r) => r.stderr));
  expect(stderr.some((e) => e.includes("the create's outcome is unknown"))).toBe(true);
  const recovered = stderr.filter((e) => e.includes('recovered:')).length;
  const reruns = outcomes.filter((o) => o.runs.length > 1).length;
  console.info(`fault run: ${recovered} recovered by reference, ${reruns} finished by rerunning the printed command`);
});
