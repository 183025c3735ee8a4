// Help like gh's (docs/commands.md): `offramp help tx create` is `offramp tx create --help`,
// and every command's help lists the program's flags it takes under their own heading.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { COMMAND_FORMATS } from '../../src/lib/output/format.js';

describe('help', () => {
  it('help CMD SUB prints the help of CMD SUB, in process and from the built snapshot', async () => {
    const flag = await runMain(['tx', 'create', '--help']);
    const word = await runMain(['help', 'tx', 'create']);
    expect(word.code).toBe(0);
    expect(word.stdout).toContain('Usage: offramp tx create');
    expect(word.stdout).toBe(flag.stdout);
    const built = await runCli(['help', 'tx', 'create']);
    expect(built.stdout).toBe(flag.stdout);
  });

  it('a command lists the global flags it honours, and not its group’s own flags', async () => {
    const r = await runMain(['emulator', 'wait', '--help']);
    const start = r.stdout.indexOf('Global Options:');
    const globals = r.stdout.slice(start, r.stdout.indexOf('\n\n', start));
    expect(r.stdout).toContain('Global Options:');
    for (const flag of ['--timeout <duration>', '--base-url <url>', '--json', '--jq <expr>', '--profile <name>']) expect(globals).toContain(flag);
    expect(globals).not.toContain('--port');
    expect(globals).not.toContain('--version');
  });

  it('help for a word that is no command is a usage error', async () => {
    const r = await runMain(['help', 'nope', 'more']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'nope'");
  });

  it('lists the commands before the flags, as gh does, in process and from the built snapshot', async () => {
    for (const args of [['--help'], ['tx', '--help'], ['webhooks', '--help']]) {
      const r = await runMain(args);
      expect(r.code).toBe(0);
      const commands = r.stdout.search(/^(Transactions|Commands):$/m);
      expect(commands).toBeGreaterThan(0);
      expect(r.stdout.indexOf('\nOptions:\n')).toBeGreaterThan(commands);
      expect((await runCli(args)).stdout).toBe(r.stdout);
    }
    // A command with nothing below it keeps its flags where they were.
    const leaf = await runMain(['tx', 'list', '--help']);
    expect(leaf.stdout).toMatch(/^Usage: offramp tx list \[options\]\n\nlist transactions, newest first\n\nOptions:\n/);
  });

  it('a group named alone prints its help on stdout and exits 0', async () => {
    for (const [args, usage] of [[[], 'Usage: offramp [options] [command]'], [['tx'], 'Usage: offramp tx [options] [command]'], [['--json', 'webhooks'], 'Usage: offramp webhooks']] as const) {
      const r = await runMain([...args]);
      expect(r, r.stderr).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout.startsWith(usage)).toBe(true);
      expect(r.stdout).toBe((await runMain([...args, '--help'])).stdout);
    }
    const built = await runCli(['tx']);
    expect(built).toMatchObject({ code: 0, stderr: '' });
    expect(built.stdout).toContain('  create [options]');
    // A group that runs something of its own still does; a word that is no command is still refused.
    expect((await runMain(['tx', 'nope'])).code).toBe(2);
    // --version beside a group's words is still the version; a flag missing its value is still refused.
    for (const args of [['--json', '--version'], ['tx', '-V']]) {
      const v = await runMain(args);
      expect(v, args.join(' ')).toMatchObject({ code: 0 });
      expect(v.stdout, args.join(' ')).toMatch(/^offramp(-cli)? \S*\d+\.\d+\.\d+/);
    }
    const missing = await runMain(['tx', '--profile']);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
  });

  it('a mistyped emulator command is a usage error naming its commands, which its usage lists too', async () => {
    const r = await runMain(['emulator', 'clok']);
    expect(r.code).toBe(2);
    const names = ['clock', 'reset', 'fault', 'state', 'webhooks', 'wait'];
    expect(r.stderr).toContain(`unknown command 'clok' for 'offramp emulator' (its commands: ${names.join(', ')})`);
    const help = await runMain(['emulator', '--help']);
    expect(help.stdout).toContain(`offramp emulator ${names.join('|')} ...`);
  });

  it.each(Object.entries(COMMAND_FORMATS))('%s --help names the output formats it takes, from the one table', async (path, formats) => {
    const r = await runMain([...path.split(' '), '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`\nOutput formats (-o): ${formats[0]} (the default), ${formats.slice(1).join(', ')}\n`);
  });
});
