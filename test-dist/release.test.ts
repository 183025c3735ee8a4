// npm run release, as a maintainer cuts one: build/ then holds the npm tarball, both
// executables and the package's SBOM, each with a .sha256 that sha256sum -c accepts, and
// nothing else (an earlier release's files are gone; the runtime cache stays).
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from './helpers.js';

const build = new URL('../build', import.meta.url).pathname;
const SHIPPED = [`offramp-cli-${VERSION}.tgz`, 'offramp-linux-arm64', 'offramp-linux-x64', 'sbom.cdx.json'];

describe('npm run release', () => {
  it('writes the tarball, both executables and the SBOM into build/, each with a checksum that verifies', () => {
    writeFileSync(join(build, 'offramp-cli-0.0.1.tgz'), 'an earlier release');
    execFileSync(process.execPath, [new URL('../scripts/release.mjs', import.meta.url).pathname], { stdio: ['ignore', 'ignore', 'inherit'] });
    expect(readdirSync(build).sort()).toEqual(['.work', ...SHIPPED.flatMap((f) => [f, `${f}.sha256`])].sort());
    const check = spawnSync('sha256sum', ['-c', ...SHIPPED.map((f) => `${f}.sha256`)], { cwd: build, encoding: 'utf8' });
    expect(check.stdout).toBe(SHIPPED.map((f) => `${f}: OK\n`).join(''));
    expect(check.status).toBe(0);
    const files = execFileSync('tar', ['-tzf', join(build, `offramp-cli-${VERSION}.tgz`)], { encoding: 'utf8' });
    expect(files).toContain('package/dist/sbom.cdx.json');
    expect(files).toContain('package/bin/offramp.js');
  });
});
