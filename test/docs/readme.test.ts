// The README's Install and Quick start as a newcomer reads them (issue #16, item 12): no
// install from a registry the package is not on, and `offramp` is on the PATH (or the
// bin is named) before the first command that needs it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = (title: string) => readme.slice(readme.indexOf(`## ${title}\n`), readme.indexOf('\n## ', readme.indexOf(`## ${title}\n`) + 1));

describe('README: Install and Quick start', () => {
  it('installs from a clone, not from a registry the package is not published to', () => {
    const install = section('Install');
    expect(install).not.toMatch(/npm install -g offramp-cli\b/);
    expect(install).toMatch(/npm ci/);
    expect(install).toMatch(/npm link/);
  });

  it('says how `offramp` gets on the PATH before the first command that runs it', () => {
    const before = readme.slice(0, readme.indexOf('offramp emulator'));
    expect(before).toMatch(/npm link/);
    expect(section('Quick start')).toMatch(/npm ci && npm start/);
  });
});
