// A run loads only the top-level command it runs (loadProgram); the program's help,
// unknown commands and anything unclear get the whole program.
import { describe, expect, it } from 'vitest';
import { commandWord, newProgram } from '../../src/commands/globals.js';
import { createProgram, loadProgram, TOP_LEVEL } from '../../src/commands/load.js';
import { runMain } from '../helpers/main.js';

const runner = { run: async () => undefined };
const TOP_LEVEL_COMMANDS = Object.keys(TOP_LEVEL);
const topLevel = async (argv: string[]) => (await loadProgram(runner, {}, argv)).commands.map((c) => c.name());

describe('commandWord', () => {
  const program = newProgram();
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

describe('loadProgram', () => {
  it('knows every top-level command by its name, in order', async () => {
    expect((await createProgram(runner)).commands.map((c) => c.name())).toEqual(TOP_LEVEL_COMMANDS);
  });

  it.each(TOP_LEVEL_COMMANDS.filter((name) => name !== 'completion').map((name) => [name]))('%s loads that command alone, whole', async (name) => {
    const program = await loadProgram(runner, {}, ['--json', name]);
    expect(program.commands.map((c) => c.name())).toEqual([name]);
    const full = (await createProgram(runner)).commands.find((c) => c.name() === name)!;
    const help = (cmd: typeof full): string[] => [cmd.helpInformation(), ...cmd.commands.flatMap(help)];
    expect(help(program.commands[0]!)).toEqual(help(full));
  });

  it('loads the whole program for no command or an unknown one', async () => {
    expect(await topLevel([])).toEqual(TOP_LEVEL_COMMANDS);
    expect(await topLevel(['tz', 'get'])).toEqual(TOP_LEVEL_COMMANDS);
    expect(await topLevel(['help', 'tx'])).toEqual(TOP_LEVEL_COMMANDS);
  });

  it('loads the whole program for completion, which describes every command', async () => {
    expect(await topLevel(['completion', 'bash'])).toEqual(TOP_LEVEL_COMMANDS);
    const r = await runMain(['completion', 'bash']);
    expect(r.code).toBe(0);
    for (const name of ['tx', 'emulator', 'doctor']) expect(r.stdout).toContain(name);
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
