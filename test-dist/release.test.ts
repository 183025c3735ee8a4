// npm run release, as a maintainer cuts one: build/ then holds the npm tarball, both
// executables, the package's SBOM and each executable's own (its Node.js runtime and the
// packages bundled into it), each with a .sha256 that sha256sum -c accepts, and
// nothing else (an earlier release's files are gone; the runtime cache stays).
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from './helpers.js';

const build = new URL('../build', import.meta.url).pathname;
const SHIPPED = [`offramp-cli-${VERSION}.tgz`, 'offramp-linux-arm64', 'offramp-linux-arm64.cdx.json', 'offramp-linux-x64', 'offramp-linux-x64.cdx.json', 'sbom.cdx.json'];
type Bom = { metadata: { component: { name: string; version: string } }; components: { type: string; group?: string; name: string; version: string; scope: string }[] };
const read = (file: string) => JSON.parse(readFileSync(join(build, file), 'utf8')) as Bom;
const listed = (bom: Bom, type: string, scope: string) => bom.components.filter((c) => c.type === type && c.scope === scope).map((c) => `${c.group ? `${c.group}/` : ''}${c.name}@${c.version}`);

describe('npm run release', () => {
  it("writes the tarball, both executables, the package's SBOM and each executable's into build/, each with a checksum that verifies", () => {
    writeFileSync(join(build, 'offramp-cli-0.0.1.tgz'), 'an earlier release');
    execFileSync(process.execPath, [new URL('../scripts/release.mjs', import.meta.url).pathname], { stdio: ['ignore', 'ignore', 'inherit'] });
    expect(readdirSync(build).sort()).toEqual(['.work', ...SHIPPED.flatMap((f) => [f, `${f}.sha256`])].sort());
    const check = spawnSync('sha256sum', ['-c', ...SHIPPED.map((f) => `${f}.sha256`)], { cwd: build, encoding: 'utf8' });
    expect(check.stdout).toBe(SHIPPED.map((f) => `${f}: OK\n`).join(''));
    expect(check.status).toBe(0);
    const files = execFileSync('tar', ['-tzf', join(build, `offramp-cli-${VERSION}.tgz`)], { encoding: 'utf8' });
    expect(files).toContain('package/dist/sbom.cdx.json');
    expect(files).toContain('package/bin/offramp.js');

    // Each executable's SBOM: the runtime it is made of, and what is bundled (the package's
    // bundled list; not the keychain module, which an executable cannot load).
    const nodeVersion = /Node\.js v(\S+)\)/.exec(execFileSync(join(build, 'offramp-linux-x64'), ['--version'], { encoding: 'utf8' }))![1];
    const packageBom = read('sbom.cdx.json');
    for (const arch of ['x64', 'arm64']) {
      const bom = read(`offramp-linux-${arch}.cdx.json`);
      expect(bom.metadata.component).toMatchObject({ name: `offramp-linux-${arch}`, version: VERSION });
      expect(listed(bom, 'platform', 'required')).toEqual([`node-linux-${arch}@${nodeVersion}`]);
      expect(listed(bom, 'library', 'required').sort()).toEqual(listed(packageBom, 'library', 'required').sort());
      expect(listed(bom, 'library', 'optional')).toEqual([]);
    }
    expect(listed(packageBom, 'library', 'optional').some((c) => c.startsWith('@napi-rs/keyring@'))).toBe(true);
  });
});
