// Every command's --help: a summary, its flags, and real examples (issue 7).
import { describe, expect, it } from 'vitest';
import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { createProgram } from '../../src/commands/load.js';
import { runCli } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';

function leaves(cmd: Command, path: string[] = []): string[][] {
  const subs = cmd.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden);
  const here = path.length > 0 && (subs.length === 0 || cmd.registeredArguments.length > 0) ? [path] : [];
  return [...here, ...subs.flatMap((c) => leaves(c, [...path, c.name()]))];
}

const commands = leaves(await createProgram({ run: async () => undefined }));

describe('help', () => {
  it('covers every command of the contract', () => {
    const names = commands.map((p) => p.join(' '));
    for (const name of ['quote', 'tx create', 'tx watch', 'revenue export', 'webhooks listen', 'simulate', 'simulate walk', 'smoke', 'emulator', 'demo', 'profile add', 'config path', 'api', 'doctor', 'completion']) {
      expect(names).toContain(name);
    }
  });

  it.each(commands.map((p) => [p.join(' '), p]))('offramp %s --help has a summary, usage and examples', async (_name, path) => {
    const r = await runMain([...(path as string[]), '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: offramp /);
    expect(r.stdout).toMatch(/\nExamples:\n {2}\$ offramp /);
  });

  it('groups the top-level commands', async () => {
    const r = await runMain(['--help']);
    expect(r.stdout.indexOf('Transactions:')).toBeLessThan(r.stdout.indexOf('Finance:'));
    expect(r.stdout).toMatch(/Webhooks:[\s\S]*Sandbox:[\s\S]*Setup:/);
  });
});

// The entry point answers --version and --help itself, before the parser loads
// (src/main.ts): only the built binary runs that path.
describe('offramp --version and --help (built binary)', () => {
  it('--version prints the tool and API version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^offramp \d+\.\d+\.\d+\nAPI \/api\/v1 \(interface 1\.0\.0\)\n$/);
  });

  it('--help groups the commands', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const group of ['Transactions:', 'Finance:', 'Webhooks:', 'Sandbox:', 'Setup:']) expect(r.stdout).toContain(group);
    expect(r.stdout).toContain('tx');
  });
});
