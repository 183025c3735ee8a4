// Under --json or --jq, an error is the JSON envelope for a script (stderr not a terminal)
// and the one line with its hint for a person (stderr a terminal): docs/output.md, "Errors and exit codes".
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/main.js';
import { runInPty } from '../helpers/pty.js';
import { tempHome } from '../helpers/cli.js';

const env = { OFFRAMP_API_KEY: 'sk_test_errors_tty', OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner' };
const bad = ['tx', 'list', '--cursor', ''];

describe('errors under --json', () => {
  it('stay one line and a hint when stderr is a terminal', async () => {
    for (const json of [['--json'], ['--jq', '.data[].id'], ['-o', 'json']]) {
      const r = await runMain([...bad, ...json], { env, stderrColumns: 80 });
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toBe('error: USAGE: --cursor must not be empty\nhint: pass the next_cursor a previous page printed\n');
    }
  });

  it('a command line the parser refuses is human on a terminal too', async () => {
    const r = await runMain(['tx', 'list', '--nope', '--json'], { env, stderrColumns: 80 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: USAGE: unknown option '--nope'/);
  });

  it('are the envelope when stderr is not a terminal, even with stdout on one', async () => {
    const r = await runMain([...bad, '--json'], { env, columns: 80 });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'USAGE', message: '--cursor must not be empty' } });
  });

  it('in a real terminal, the built binary prints the line and its hint', async () => {
    const r = await runInPty([...bad, '--json'], { ...env, HOME: tempHome().env.HOME });
    const result = await r.done;
    expect(result.code).toBe(2);
    expect(result.output).toContain('error: USAGE: --cursor must not be empty\nhint: pass the next_cursor a previous page printed');
    expect(result.output).not.toContain('{"error"');
  });
});
