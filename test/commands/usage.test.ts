// What a newcomer typing a wrong command line sees (issue #16, item 9): a usage error is
// one line (or the error envelope when JSON was asked for), exit 2, nothing sent.
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/main.js';

const env = { OFFRAMP_API_KEY: 'sk_test_usage', OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner' };

describe('usage errors', () => {
  it('an unknown command with --json is the error envelope on stderr', async () => {
    const r = await runMain(['nope', '--json'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'USAGE', message: "unknown command 'nope'" } });
  });

  it('an unknown flag with -o json too', async () => {
    const r = await runMain(['tx', 'list', '--nope', '-o', 'json'], { env });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'USAGE', message: "unknown option '--nope'" } });
  });

  it('`offramp transactions …` suggests tx, which spelling distance alone never finds', async () => {
    for (const word of ['transactions', 'transaction']) {
      const r = await runMain([word, 'list'], { env });
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toBe(`error: USAGE: unknown command '${word}'\nhint: did you mean tx? (offramp tx --help)\n`);
    }
    const events = await runMain(['--profile', 'x', 'events', 'list'], { env });
    expect(events.stderr).toMatch(/hint: did you mean webhooks\?/);
    // Commander's own suggestion still answers near misses.
    expect((await runMain(['txs'], { env })).stderr).toMatch(/Did you mean tx\?/);
  });

  it('`help NAME` for no such command is an error, not the program help', async () => {
    const r = await runMain(['help', 'nope'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("error: USAGE: unknown command 'nope'\nhint: offramp --help lists the commands\n");
    const known = await runMain(['help', 'tx'], { env });
    expect(known.code).toBe(0);
    expect(known.stdout).toMatch(/^Usage: offramp tx/);
  });

  it('--json with another -o, and a format a command has not, are refused before any request', async () => {
    const both = await runMain(['tx', 'list', '--json', '-o', 'table'], { env });
    expect(both.code).toBe(2);
    expect(JSON.parse(both.stderr)).toMatchObject({ error: { code: 'USAGE', message: '--json and -o table ask for two formats' } });
    const walk = await runMain(['simulate', 'walk', '-o', 'ndjson'], { env });
    expect(walk.code).toBe(2);
    expect(walk.stderr).toBe('error: USAGE: -o ndjson is not supported by this command\nhint: use one of: table, json\n');
  });

  it('an unknown command exits 2 with a suggestion', async () => {
    const r = await runMain(['tx', 'cretae']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error: USAGE: unknown command 'cretae'/);
    expect(r.stderr).toMatch(/Did you mean create\?/);
  });

  it('a bad global number exits 2 before anything is sent', async () => {
    const r = await runMain(['--timeout', 'soon', 'tx', 'list']);
    expect(r.code).toBe(2);
  });
});
