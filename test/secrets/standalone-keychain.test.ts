// The standalone executable cannot load the keychain module (native code, docs/install.md):
// its note says where the key is, a 0600 file, even where a keyring session exists. The
// build's definition is set before the CLI is loaded afresh, as the executable has it from the
// start; test files share their modules (vitest.config.ts), so the fresh copies are dropped after.
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { tempHome } from '../helpers/cli.js';

beforeAll(() => {
  Object.assign(globalThis, { __OFFRAMP_STANDALONE__: true });
  vi.resetModules();
});
afterAll(() => {
  Reflect.deleteProperty(globalThis, '__OFFRAMP_STANDALONE__');
  vi.resetModules();
});

it('profile add in the standalone executable says it keeps the key in a 0600 file, inside a keyring session too', async () => {
  const { runMain } = await import('../helpers/main.js');
  const home = tempHome();
  const env = { ...home.env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(home.dir, 'bus')}` };
  const add = await runMain(['profile', 'add', 'st', '--env', 'local', '--base-url', 'http://127.0.0.1:9/api/v1/partner', '--api-key-stdin'], { env, stdin: 'sk_test_standalone_5678\n' });
  expect(add.code, add.stderr).toBe(0);
  expect(add.stderr).toContain(
    'note: the key is kept in the config file, a 0600 file readable by you alone: the standalone executable keeps keys there, not in the system keychain (the npm package uses the keychain)',
  );
  expect(add.stderr).not.toContain('no system keychain');
});
