// The emulator on a free loopback port for end-to-end tests, and the environment that
// points the built `offramp` binary at it. Every answer it gives is held to the OpenAPI
// document (./openapi.ts).
import { startEmulator } from '../../src/emulator/index.js';
import { tempHome } from './cli.js';
import { holdToDocument } from './openapi.js';

export const TEST_KEY = 'sk_test_e2e_partner_0001';

export type EmulatorOptions = NonNullable<Parameters<typeof startEmulator>[0]>;

export async function emulatorFor(options: EmulatorOptions = {}) {
  const emulator = await startEmulator({ port: 0, apiKeys: [TEST_KEY], webhookRetry: { maxAttempts: 3, baseDelayMs: 5 }, onAnswer: holdToDocument, ...options });
  const home = tempHome();
  const env = { ...home.env, OFFRAMP_API_KEY: options.apiKeys?.[0] ?? TEST_KEY, OFFRAMP_BASE_URL: emulator.url };
  return { emulator, env, home, close: () => emulator.close() };
}
