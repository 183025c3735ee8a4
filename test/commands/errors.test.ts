import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { tempHome } from '../helpers/cli.js';
import { ApiError, exitCodeForStatus, exitCodeOf, NetworkError, TimeoutError, UsageError } from '../../src/lib/errors.js';
import { toApiError } from '../../src/lib/client/http.js';
import { startEmulator } from '../../src/emulator/index.js';

describe('exit codes', () => {
  it('maps statuses to the contract table', () => {
    expect([400, 401, 403, 404, 409, 429, 500, 503].map(exitCodeForStatus)).toEqual([2, 3, 3, 4, 5, 6, 1, 1]);
  });

  it('maps error types', () => {
    expect(exitCodeOf(new UsageError('x'))).toBe(2);
    expect(exitCodeOf(new NetworkError('x'))).toBe(7);
    expect(exitCodeOf(new TimeoutError('x'))).toBe(7);
    expect(exitCodeOf(new Error('x'))).toBe(1);
  });

  it('reads the error envelope into one typed error', () => {
    const body = { error: { code: 'CONFLICT', message: 'Transaction cannot be cancelled in status completed', timestamp: '2026-11-22T10:00:00Z' } };
    const err = toApiError(409, body, 'POST', 'http://127.0.0.1/api/v1/partner/transactions/x/cancel', 'req_1');
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, code: 'CONFLICT', requestId: 'req_1', exitCode: 5 });
    expect(err.envelope).toEqual(body);
  });

  it('still gives a code and message when the body is not an envelope', () => {
    const err = toApiError(502, '<html>bad gateway</html>', 'GET', 'http://127.0.0.1/api/v1/partner/transactions');
    expect(err).toMatchObject({ status: 502, code: 'BAD_GATEWAY', exitCode: 1, enveloped: false });
    expect(err.message).toMatch(/HTTP 502/);
    // --json prints an envelope of the CLI's making, in the spec's shape.
    expect(err.envelope).toMatchObject({ error: { code: 'BAD_GATEWAY', message: expect.stringMatching(/HTTP 502/), timestamp: expect.any(String) } });
  });

  it('names a status without a body as the emulator names it in its envelope: 503 is SERVICE_UNAVAILABLE on both', async () => {
    const emu = await startEmulator({ port: 0 });
    try {
      for (const status of [500, 502, 503, 504, 507]) {
        const rule = await fetch(`${emu.controlUrl}/faults`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ route: 'GET /transactions', next: 1, status }),
        });
        expect(rule.status).toBe(201);
        const answered = (await (await fetch(`${emu.url}/transactions`, { headers: { 'x-api-key': 'sk_test_emulator' } })).json()) as { error: { code: string } };
        const derived = toApiError(status, 'bad gateway', 'GET', `${emu.url}/transactions`);
        expect(derived.code, `HTTP ${status}`).toBe(answered.error.code);
      }
      expect(toApiError(503, '', 'GET', `${emu.url}/transactions`).code).toBe('SERVICE_UNAVAILABLE');
      expect(toApiError(507, '', 'GET', `${emu.url}/transactions`).code).toBe('HTTP_507');
    } finally {
      await emu.close();
    }
  });

  it('an error the CLI does not know is INTERNAL, exit 1: its first line and a hint, its whole message in the --json envelope', async () => {
    const run = async (args: string[]) => {
      let stderr = '';
      const code = await main(args, {
        stdin: new PassThrough(),
        // A plain Error from below the CLI's own errors: here the output stream's.
        stdout: new Writable({
          write() {
            throw new Error('the disk is on fire\nsecond line');
          },
        }),
        stderr: new Writable({
          write(chunk, _encoding, done) {
            stderr += String(chunk);
            done();
          },
        }),
        env: { ...tempHome().env, CI: 'true' },
      });
      return { code, stderr };
    };
    expect(await run(['config', 'path'])).toEqual({ code: 1, stderr: 'error: INTERNAL: the disk is on fire\nhint: run again with --verbose for details\n' });
    const json = await run(['config', 'path', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'INTERNAL', message: 'the disk is on fire\nsecond line' } });
  });
});
