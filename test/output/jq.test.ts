// --jq EXPR (docs/output.md, "Filtering JSON with --jq"): any command's JSON through a jq
// expression, as gh's --jq. Checked against the emulator (lists, NDJSON line by line) and a
// scripted server (a bad expression sends nothing; text from outside on a terminal).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JqFilter } from '../../src/lib/output/jq.js';
import { runCli } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { emulatorFor } from '../helpers/emulator.js';
import { json, scriptedServer } from '../helpers/server.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
const refs = ['jq-order-1', 'jq-order-2'];

beforeAll(async () => {
  emu = await emulatorFor();
  for (const ref of refs) {
    const r = await runMain(['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', ref, '--json'], { env: emu.env });
    expect(r.code).toBe(0);
  }
});
afterAll(() => emu.close());

describe('--jq', () => {
  it('filters a list and prints strings raw, one a line', async () => {
    const r = await runMain(['tx', 'list', '--jq', '.data[].merchant_reference'], { env: emu.env });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual(refs);
  });

  it('builds objects as jq does, and filters NDJSON line by line', async () => {
    const whole = await runMain(['tx', 'list', '--jq', '{n: (.data | length)}'], { env: emu.env });
    expect(JSON.parse(whole.stdout)).toEqual({ n: 2 });
    const lines = await runMain(['tx', 'list', '--all', '-o', 'ndjson', '--jq', '.status'], { env: emu.env });
    expect(lines.code).toBe(0);
    expect(lines.stdout).toBe('awaiting_deposit\nawaiting_deposit\n');
  });

  it('refuses an expression jq cannot compile before any request (exit 2)', async () => {
    const server = await scriptedServer([]);
    try {
      const r = await runMain(['tx', 'list', '--jq', '.[', '--base-url', server.baseUrl, '--api-key', 'sk_test_jq_000001']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/"code":"USAGE".*--jq: syntax error/);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('refuses -o table with --jq (exit 2)', async () => {
    const r = await runMain(['tx', 'list', '-o', 'table', '--jq', '.'], { env: emu.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--jq filters JSON, and -o table is not JSON');
  });

  it('says JQ (exit 1) when the expression fails on the data', async () => {
    const r = await runMain(['tx', 'list', '--jq', '.data[0] | .id | .x'], { env: emu.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/"code":"JQ".*Cannot index string/);
  });

  it('shows control characters from the service on a terminal, and passes them through a pipe', async () => {
    const body = { name: 'evil\u001b]0;pwned\u0007name' };
    const server = await scriptedServer([json(200, body), json(200, body)]);
    try {
      const args = ['api', 'GET', '/ping', '--jq', '.name', '--base-url', server.baseUrl, '--api-key', 'sk_test_jq_000001'];
      const tty = await runMain(args, { columns: 80 });
      expect(tty.code).toBe(0);
      expect(tty.stdout).toBe('evil\\x1b]0;pwned\\x07name\n');
      const piped = await runMain(args);
      expect(piped.stdout).toBe('evil\u001b]0;pwned\u0007name\n');
    } finally {
      await server.close();
    }
  });
});

describe('the jq filter', () => {
  it('takes the next NDJSON line only once a slow stdout has drained', async () => {
    // A stdout that holds each write until released, and says it is full after one.
    const written: string[] = [];
    let release: (() => void) | undefined;
    let wrote: () => void = () => undefined;
    const firstWrite = new Promise<void>((resolve) => (wrote = resolve));
    const out = new Writable({
      highWaterMark: 1,
      write(chunk, _encoding, done) {
        written.push(String(chunk));
        release = done;
        wrote();
      },
    });
    const filter = new JqFilter('.n', true, out);
    let taken = false;
    filter.stream.write('{"n":1}\n', () => (taken = true));
    await firstWrite;
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    await turn();
    expect(taken).toBe(false);
    release!();
    await turn();
    expect(taken).toBe(true);
    await filter.finish();
    expect(written).toEqual(['1\n']);
  });
});

describe('--jq on a terminal', () => {
  it('@tsv shows its tabs as tabs; other control characters stay shown, not obeyed', async () => {
    const r = await runMain(['tx', 'list', '--jq', '.data[] | [.merchant_reference, .status, "bell\u0007"] | @tsv'], { env: emu.env, columns: 100 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual(refs.map((ref) => `${ref}\tawaiting_deposit\tbell\\x07`));
  });
});

describe('--jq in the built offramp', () => {
  it('filters as in process: dist/ is CommonJS, and jq-wasm is loaded from there', async () => {
    const r = await runCli(['tx', 'list', '--jq', '.data[].merchant_reference'], { env: emu.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual(refs);
  });
});
