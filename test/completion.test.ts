// Shell completions: generated from the command tree, committed under completions/, and
// they actually complete (bash always; zsh and fish where those shells are installed).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { completionScript as generate, type Shell } from '../src/commands/completion.js';
import { createProgram } from '../src/commands/load.js';
import { BIN } from './helpers/cli.js';
import { runMain } from './helpers/main.js';

// Made once, from the whole program.
const program = await createProgram({ run: async () => undefined });
const scripts: Record<Shell, string> = { bash: generate(program, 'bash'), zsh: generate(program, 'zsh'), fish: generate(program, 'fish') };
const completionScript = (shell: Shell) => scripts[shell];

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

describe('completion scripts', () => {
  it.each<Shell>(['bash', 'zsh', 'fish'])('completions/offramp.%s is current (regenerate: offramp completion <shell> > completions/offramp.<shell>)', (shell) => {
    expect(readFileSync(new URL(`../completions/offramp.${shell}`, import.meta.url), 'utf8')).toBe(completionScript(shell));
  });

  const bash = (words: string[]) => {
    const file = join(tmpdir(), `offramp-completion-${process.pid}.bash`);
    writeFileSync(file, completionScript('bash'));
    const script = `source ${file}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _offramp; printf '%s\\n' "\${COMPREPLY[@]}"`;
    return execFileSync('bash', ['-c', script], { encoding: 'utf8' }).trim().split('\n');
  };

  it('bash completes commands, subcommands and flags', () => {
    expect(bash(['offramp', ''])).toEqual(expect.arrayContaining(['tx', 'revenue', 'webhooks', 'simulate', 'profile', 'completion']));
    expect(bash(['offramp', '--profile', 'dev', 'tx', 'c'])).toEqual(['create', 'cancel']);
    expect(bash(['offramp', 'tx', 'create', '--fi'])).toEqual(['--fiat-amount']);
  });

  it('bash completes closed value lists: outputs, outcomes, statuses, events, shells', () => {
    expect(bash(['offramp', 'tx', 'list', '-o', ''])).toEqual(['table', 'json', 'ndjson', 'csv']);
    expect(bash(['offramp', 'simulate', 'walk', '--outcome', ''])).toEqual(['completed', 'failed', 'expired', 'refunded']);
    expect(bash(['offramp', 'tx', 'watch', 'x', '--until', ''])).toContain('awaiting_deposit');
    expect(bash(['offramp', 'simulate', '0b6f', ''])).toEqual(expect.arrayContaining(['deposit.detected', 'payout.settled']));
    expect(bash(['offramp', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
  });

  it('asks offramp itself for profile names', () => {
    expect(completionScript('bash')).toContain('offramp __complete profiles');
    expect(completionScript('zsh')).toContain('offramp __complete profiles');
    expect(completionScript('fish')).toContain('offramp __complete profiles');
  });

  it.runIf(has('fish'))('fish completes subcommands and values', () => {
    const file = join(tmpdir(), `offramp-completion-${process.pid}.fish`);
    writeFileSync(file, completionScript('fish'));
    const out = execFileSync('fish', ['-c', `source ${file}; complete -C "offramp tx "; complete -C "offramp -o "`], { encoding: 'utf8' });
    expect(out).toMatch(/^create\t/m);
    expect(out).toMatch(/^ndjson\t/m);
  });

  it.runIf(has('zsh'))('zsh script parses', () => {
    const file = join(tmpdir(), `offramp-completion-${process.pid}.zsh`);
    writeFileSync(file, completionScript('zsh'));
    expect(spawnSync('zsh', ['-n', file]).status).toBe(0);
  });
});

/**
 * Each shell completing in a directory that holds a file, so a completion that falls back
 * to file names shows it. bash runs the generated function as its completion would (the
 * registration has no `-o default`, checked, so an empty answer stays empty); zsh runs it
 * with compadd, _describe and _files standing in for the completion system's builtins
 * (they print what would be offered); fish runs its own `complete -C`.
 */
describe('value completions in bash, zsh and fish', () => {
  const dir = mkdtempSync(join(tmpdir(), 'offramp-completion-'));
  const STRAY = 'stray-file.txt';
  writeFileSync(join(dir, STRAY), '');
  for (const shell of ['bash', 'zsh', 'fish'] as const) writeFileSync(join(dir, `offramp.${shell}`), completionScript(shell));
  const lines = (out: string) => out.split('\n').map((l) => l.split('\t')[0]!).filter(Boolean);
  const run = (cmd: string, args: string[]) => lines(execFileSync(cmd, args, { cwd: dir, encoding: 'utf8' }));

  const complete: Record<Shell, (words: string[]) => string[]> = {
    bash: (words) =>
      run('bash', ['-c', `source offramp.bash; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _offramp; printf '%s\\n' "\${COMPREPLY[@]}"`]),
    zsh: (words) =>
      run('zsh', [
        '-c',
        [
          'compdef() { :; }',
          'compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }',
          '_describe() { local -a items; items=("${(@P)${@[-1]}}"); print -rl -- "${items[@]%%:*}"; }',
          `_files() { print -rl -- *(N); }`,
          'source ./offramp.zsh',
          'words=("$@"); CURRENT=${#words}; _offramp',
        ].join('\n'),
        'zsh',
        ...words,
      ]),
    fish: (words) => run('fish', ['-c', `source offramp.fish; complete -C ${JSON.stringify(words.join(' '))}`]),
  };
  const shells = (['bash', 'zsh', 'fish'] as const).filter(has);
  const STATUSES = ['pending', 'awaiting_deposit', 'deposit_confirming', 'selling_crypto', 'order_filled', 'completed', 'failed', 'expired', 'cancelled', 'refunded'];
  const EVENT_TYPES = ['transaction.created', 'deposit.detected', 'deposit.confirmed', 'transaction.completed', 'transaction.failed', 'transaction.expired', 'transaction.refunded', 'payout.settled'];
  const sorted = (words: string[]) => [...words].sort();

  it('bash registers no fallback to file names', () => {
    expect(execFileSync('bash', ['-c', 'source offramp.bash; complete -p offramp'], { cwd: dir, encoding: 'utf8' }).trim()).toBe('complete -F _offramp offramp');
  });

  it.each(shells)('%s: status words for tx list --status and tx watch --until, never file names', (shell) => {
    expect(sorted(complete[shell](['offramp', 'tx', 'list', '--status', '']))).toEqual(sorted(STATUSES));
    expect(sorted(complete[shell](['offramp', 'tx', 'watch', '0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91', '--until', '']))).toEqual(sorted(STATUSES));
  });

  it.each(shells)('%s: event types for webhooks list --type, delivery statuses for --status', (shell) => {
    expect(sorted(complete[shell](['offramp', 'webhooks', 'list', '--type', '']))).toEqual(sorted(EVENT_TYPES));
    expect(sorted(complete[shell](['offramp', 'webhooks', 'list', '--status', '']))).toEqual(['delivered', 'failed', 'pending']);
  });

  it.each(shells)('%s: -o offers only the formats the command takes', (shell) => {
    expect(sorted(complete[shell](['offramp', 'revenue', 'export', '-o', '']))).toEqual(['csv', 'json', 'ndjson', 'xlsx']);
    expect(sorted(complete[shell](['offramp', 'tx', 'get', '-o', '']))).toEqual(['json', 'table']);
    expect(sorted(complete[shell](['offramp', 'webhooks', 'list', '-o', '']))).toEqual(['csv', 'json', 'ndjson', 'table']);
    expect(sorted(complete[shell](['offramp', 'smoke', '--output', '']))).toEqual(['json', 'table']);
  });

  it.each(shells)('%s: a value with nothing to offer offers nothing; a file flag offers files', (shell) => {
    expect(complete[shell](['offramp', 'tx', 'get', '--ref', ''])).toEqual([]);
    expect(complete[shell](['offramp', 'tx', 'create', '--fiat-amount', ''])).toEqual([]);
    expect(complete[shell](['offramp', 'tx', 'get', ''])).toEqual([]);
    expect(complete[shell](['offramp', 'revenue', 'export', '--out', ''])).toContain(STRAY);
    expect(complete[shell](['offramp', 'emulator', 'state', 'export', ''])).toContain(STRAY);
  });
});

describe('-o where a command refuses it', () => {
  it('is refused before the command runs (exit 2, nothing sent), naming what the command takes', async () => {
    const smoke = await runMain(['smoke', '-o', 'csv'], { env: { OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner', OFFRAMP_API_KEY: 'sk_test_x' } });
    expect(smoke).toMatchObject({ code: 2, stdout: '' });
    expect(smoke.stderr).toBe('error: USAGE: -o csv is not supported by this command\nhint: use one of: table, json\n');
    const add = await runMain(['profile', 'add', 'x', '--env', 'local', '-o', 'table']);
    expect(add.code).toBe(2);
    expect(add.stderr).toMatch(/-o table is not supported by this command\nhint: use one of: json/);
  });
});

/**
 * A name read from the config reaches the shell only when `profile add` would accept it: a
 * hand-edited profile named `$(…)` used to run when bash completed `--profile` (bash
 * expands `$(…)` in `compgen -W`). The real completion function, with the built `offramp`
 * on PATH answering `__complete profiles` from that config.
 */
describe('profile names a shell would run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'offramp-completion-names-'));
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'offramp'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
  mkdirSync(join(dir, 'config'), { mode: 0o700 });
  const profile = { env: 'local', baseUrl: 'http://127.0.0.1:4010/api/v1/partner', apiKey: 'sk_test_emulator' };
  const names = ['$(echo PWNED >&2)', '`echo PWNED >&2`', 'dev', 'staging.eu', '$HOME', 'a b'];
  writeFileSync(join(dir, 'config', 'config.json'), JSON.stringify({ current: 'dev', profiles: Object.fromEntries(names.map((n) => [n, profile])) }), { mode: 0o600 });
  writeFileSync(join(dir, 'offramp.bash'), completionScript('bash'));

  const complete = (typed: string) =>
    spawnSync('bash', ['-c', `source offramp.bash; COMP_WORDS=(offramp --profile "$1"); COMP_CWORD=2; _offramp; printf '%s\\n' "\${COMPREPLY[@]}"`, 'bash', typed], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: `${join(dir, 'bin')}:${process.env.PATH}`, HOME: dir, TMPDIR: process.env.TMPDIR, OFFRAMP_CONFIG_DIR: join(dir, 'config') },
    });

  it('bash offers only the valid names and runs nothing', () => {
    const all = complete('');
    expect(all.stderr).not.toContain('PWNED');
    expect(all.stdout.split('\n').filter(Boolean).sort()).toEqual(['dev', 'staging.eu']);
    expect(complete('st').stdout.trim()).toBe('staging.eu');
  });

  it('__complete profiles leaves out every name profile add refuses', async () => {
    const r = await runMain(['__complete', 'profiles'], { env: { OFFRAMP_CONFIG_DIR: join(dir, 'config') } });
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['dev', 'staging.eu']);
  });
});
