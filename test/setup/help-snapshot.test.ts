// `--help` answered from the build's snapshot (src/help/snapshot.ts): the lookup rules, and
// that every entry of dist/help.json is exactly what commander prints at the widths the
// entry claims.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { helpFromSnapshot, type HelpSnapshot } from '../../src/help/snapshot.js';
import { runMain } from '../helpers/main.js';

const built = JSON.parse(readFileSync(new URL('../../dist/help.json', import.meta.url), 'utf8')) as HelpSnapshot;

describe('helpFromSnapshot', () => {
  const snapshot: HelpSnapshot = {
    '': { narrow: 'root80', wide: 'root-wide', wideFrom: 100 },
    'tx get': { narrow: 'get', wideFrom: 50 },
  };
  const load = () => snapshot;

  it('answers a command path followed by --help or -h', () => {
    expect(helpFromSnapshot(['--help'], undefined, load)).toBe('root80');
    expect(helpFromSnapshot(['tx', 'get', '-h'], undefined, load)).toBe('get');
  });

  it('picks the text for the width: 80 when not a terminal, wide from wideFrom up', () => {
    expect(helpFromSnapshot(['--help'], 80, load)).toBe('root80');
    expect(helpFromSnapshot(['--help'], 100, load)).toBe('root-wide');
    expect(helpFromSnapshot(['--help'], 240, load)).toBe('root-wide');
    expect(helpFromSnapshot(['tx', 'get', '--help'], 60, load)).toBe('get');
  });

  it('leaves commander every other case', () => {
    let loads = 0;
    const counting = () => (loads++, snapshot);
    expect(helpFromSnapshot(['--help'], 99, counting)).toBeUndefined(); // would wrap differently
    expect(helpFromSnapshot(['tx', 'get', '--help'], 49, counting)).toBeUndefined();
    expect(helpFromSnapshot(['--json', '--help'], undefined, counting)).toBeUndefined();
    expect(helpFromSnapshot(['tx', 'nope', '--help'], undefined, counting)).toBeUndefined();
    expect(helpFromSnapshot(['constructor', '--help'], undefined, counting)).toBeUndefined();
    expect(helpFromSnapshot(['--help'], undefined, () => undefined)).toBeUndefined();
    const before = loads;
    // Not a request for help: the snapshot is not even read.
    expect(helpFromSnapshot(['tx', 'get', 'abc'], undefined, counting)).toBeUndefined();
    expect(helpFromSnapshot(['help', 'tx'], undefined, counting)).toBeUndefined();
    expect(helpFromSnapshot([], undefined, counting)).toBeUndefined();
    expect(loads).toBe(before);
  });
});

describe('dist/help.json', () => {
  const paths = Object.keys(built);

  it('holds every command, the program first', () => {
    expect(paths[0]).toBe('');
    for (const path of ['tx', 'tx get', 'revenue export', 'webhooks listen', 'simulate walk', 'profile add']) expect(paths).toContain(path);
  });

  it.each(paths.map((p) => [p || '(program)', p]))('%s: commander prints the same text at 80 columns and from wideFrom up', async (_name, path) => {
    const entry = built[path]!;
    const argv = [...(path ? path.split(' ') : []), '--help'];
    expect((await runMain(argv)).stdout).toBe(entry.narrow);
    const wide = entry.wide ?? entry.narrow;
    expect((await runMain(argv, { columns: entry.wideFrom })).stdout).toBe(wide);
    expect((await runMain(argv, { columns: entry.wideFrom + 97 })).stdout).toBe(wide);
    if (entry.wideFrom > 1 && entry.wideFrom - 1 !== 80) {
      // wideFrom is the narrowest such width: one column less, commander wraps something.
      expect((await runMain(argv, { columns: entry.wideFrom - 1 })).stdout).not.toBe(wide);
    }
  });
});
