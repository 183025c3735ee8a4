// A run registers only the branch of the command tree it runs (registerCommands); the
// program's help, unknown commands and anything unclear get the whole tree.
import { describe, expect, it } from 'vitest';
import { commandWord, createProgram } from '../../src/commands/program.js';
import { TOP_LEVEL_COMMANDS } from '../../src/commands/tree.js';
import { runMain } from '../helpers/main.js';

const runtime = { run: async () => undefined };
const topLevel = (argv?: string[]) => createProgram(runtime, {}, argv).commands.map((c) => c.name());

describe('commandWord', () => {
  const program = createProgram(runtime);
  it.each([
    [['tx', 'get', 'abc'], 'tx'],
    [['--json', 'tx', 'list'], 'tx'],
    [['--profile', 'tx', 'quote'], 'quote'], // "tx" is the profile's name here
    [['--profile=dev', 'revenue', 'export'], 'revenue'],
    [['-o', 'json', '--timeout', '5', 'webhooks', 'list'], 'webhooks'],
    [['--no-color', '-v', 'doctor'], 'doctor'],
    [['-vy', 'tx'], undefined], // combined short flags: left to commander
    [['--bogus', 'tx'], undefined],
    [['--', 'tx'], undefined],
    [['--json'], undefined],
    [[], undefined],
  ])('%j → %s', (argv, word) => {
    expect(commandWord(program, argv as string[])).toBe(word);
  });
});

describe('createProgram with a command line', () => {
  it('knows every top-level command of the tree, in order', () => {
    expect(topLevel()).toEqual([...TOP_LEVEL_COMMANDS]);
  });

  it.each(TOP_LEVEL_COMMANDS.map((name) => [name]))('%s registers that branch alone, whole', (name) => {
    const program = createProgram(runtime, {}, ['--json', name]);
    expect(program.commands.map((c) => c.name())).toEqual([name]);
    const full = createProgram(runtime).commands.find((c) => c.name() === name)!;
    expect(program.commands[0]!.helpInformation()).toBe(full.helpInformation());
  });

  it('registers the whole tree for no command or an unknown one', () => {
    expect(topLevel([])).toEqual([...TOP_LEVEL_COMMANDS]);
    expect(topLevel(['tz', 'get'])).toEqual([...TOP_LEVEL_COMMANDS]);
    expect(topLevel(['help', 'tx'])).toEqual([...TOP_LEVEL_COMMANDS]);
  });

  it('still suggests the command meant', async () => {
    const r = await runMain(['tz', 'get']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'tz'[\s\S]*Did you mean tx\?/);
  });

  it('parses a run whose option value looks like a command', async () => {
    // --profile's value "tx" is not the command: `config path` runs.
    const r = await runMain(['--profile', 'tx', 'config', 'path']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/config\.json\n$/);
  });
});
