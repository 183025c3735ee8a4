// Shell completions: generated from the command tree, committed under completions/, and
// they actually complete (bash always; zsh and fish where those shells are installed).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { completionScript, type Shell } from '../src/commands/completion.js';

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
    expect(bash(['offramp', 'tx', 'list', '-o', ''])).toEqual(['table', 'json', 'csv', 'ndjson', 'xlsx']);
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
