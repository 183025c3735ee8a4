// What a command's `run` is given comes from its commander definition (src/commands/command.ts):
// its options type is derived from the .option() calls and the positional arguments, so a
// renamed flag is a compile error where `run` reads it. The type checks below are checked by
// tsc (`npm test` runs it first): an `@ts-expect-error` that no longer meets an error fails it.
import { Argument, Command } from '@commander-js/extra-typings';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { verb, withArguments, type OptionsOf, type Runner } from '../../src/commands/command.js';
import * as clock from '../../src/commands/emulator/clock.js';
import * as get from '../../src/commands/tx/get.js';
import * as replay from '../../src/commands/webhooks/replay.js';
import type { Context } from '../../src/lib/context.js';

describe("a command's options type", () => {
  it('is its flags and its positional arguments by name, nothing else', () => {
    expectTypeOf<Parameters<typeof get.run>[0]>().toEqualTypeOf<{ id: string | undefined; ref?: string | undefined }>();
    expectTypeOf<replay.Options['eventIds']>().toEqualTypeOf<string[]>();
    expectTypeOf<replay.Options['concurrency']>().toEqualTypeOf<string>(); // it has a default
    // Not an open record: a name the definition does not give is an error.
    // @ts-expect-error -- tx get has no --reference
    expectTypeOf<get.GetOptions['reference']>();
  });

  it("takes a parent's flag only where declared, typed from the parent's definition", () => {
    expectTypeOf<clock.Options>().toEqualTypeOf<{ duration: string; adminToken?: string | undefined }>();
  });

  it('breaks a run written for a flag that was renamed', () => {
    // tx get with --ref renamed, and a run still reading the old name.
    const renamed = () => withArguments(new Command('get'), new Argument('[id]', 'transaction id')).option('--reference <merchant_reference>', 'by reference');
    const run = (opts: OptionsOf<typeof renamed>) =>
      // @ts-expect-error -- `ref` is no longer one of its options
      opts.ref;
    expect(run({ id: undefined, reference: 'order-1' })).toBeUndefined();
  });
});

describe('what run receives', () => {
  it('its flags, its positional arguments under their names, and the flags above it', async () => {
    const seen: unknown[] = [];
    const module = {
      command: () =>
        withArguments(new Command<[], {}, { adminToken?: string }>('replay'), new Argument('<tx_id>', 'tx'), new Argument('[event_ids...]', 'events'))
          .option('--to <date>', 'until')
          .option('--concurrency <n>', 'at once', '4'),
      run: async (opts: unknown) => void seen.push(opts),
    };
    const runner: Runner = { run: async (_cmd, invoke) => void (await invoke({} as Context)) };
    const parent = new Command('emulator').option('--admin-token <token>', 'token').addCommand(verb(module, runner));
    await parent.parseAsync(['replay', 'tx-1', 'ev-1', 'ev-2', '--to', '2026-11-01', '--admin-token', 'secret-token'], { from: 'user' });
    expect(seen).toEqual([{ txId: 'tx-1', eventIds: ['ev-1', 'ev-2'], to: '2026-11-01', concurrency: '4', adminToken: 'secret-token' }]);
  });
});
