// The package's bill of materials (dist/sbom.cdx.json, CycloneDX): users' `npm audit` cannot
// see what is bundled into dist/, so the tarball says what is, at the version the lock
// file pins for each copy, and the optional native packages installed beside it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packed } from '../helpers/pack.js';

const root = new URL('../..', import.meta.url).pathname;
type Component = { 'bom-ref': string; group?: string; name: string; version: string; scope: string; purl: string; licenses?: unknown[]; hashes?: { alg: string; content: string }[] };
const bom = JSON.parse(readFileSync(join(root, 'dist/sbom.cdx.json'), 'utf8')) as { bomFormat: string; specVersion: string; metadata: { component: { name: string; version: string } }; components: Component[] };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; integrity?: string; dev?: boolean; optional?: boolean; optionalDependencies?: Record<string, string> }> };
const fullName = (c: Component) => (c.group ? `${c.group}/${c.name}` : c.name);

describe('the software bill of materials', () => {
  it('ships in the tarball, as CycloneDX naming the package itself', async () => {
    expect((await packed()).files).toContain('dist/sbom.cdx.json');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
    expect(bom).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.5', metadata: { component: { name: pkg.name, version: pkg.version } } });
  });

  it('lists each bundled package at the version, and with the hash, the lock file pins', () => {
    expect(bom.components.length).toBeGreaterThan(0);
    for (const c of bom.components) {
      const pinned = lock.packages[c['bom-ref']];
      expect(pinned, c['bom-ref']).toBeDefined();
      expect(c['bom-ref'].endsWith(`node_modules/${fullName(c)}`), c['bom-ref']).toBe(true);
      expect(c.version, fullName(c)).toBe(pinned!.version);
      expect(c.purl).toBe(`pkg:npm/${c.group ? `${encodeURIComponent(c.group)}/` : ''}${c.name}@${pinned!.version}`);
      expect(c.hashes, fullName(c)).toEqual([{ alg: 'SHA-512', content: Buffer.from(pinned!.integrity!.replace(/^sha512-/, ''), 'base64').toString('hex') }]);
    }
  });

  it('lists every optional dependency the lock pins (the keychain module and each of its platform builds), scope optional', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { optionalDependencies: Record<string, string> };
    const keyring = lock.packages['node_modules/@napi-rs/keyring']!;
    const expected = [...Object.keys(pkg.optionalDependencies), ...Object.keys(keyring.optionalDependencies ?? {})].map((name) => `${name}@${lock.packages[`node_modules/${name}`]!.version}`);
    const optional = bom.components.filter((c) => c.scope === 'optional');
    expect(optional.map((c) => `${fullName(c)}@${c.version}`).sort()).toEqual(expected.sort());
    expect(optional.map(fullName)).toContain('@napi-rs/keyring');
    for (const c of optional) expect(c.hashes, fullName(c)).toEqual([{ alg: 'SHA-512', content: Buffer.from(lock.packages[c['bom-ref']]!.integrity!.replace(/^sha512-/, ''), 'base64').toString('hex') }]);
  });

  it('is the list THIRD-PARTY-NOTICES credits: every bundled package, and no build or test tool', () => {
    const notices = readFileSync(join(root, 'dist/THIRD-PARTY-NOTICES.txt'), 'utf8');
    const credited = notices.split(/\n-{72}\n/).map((part) => /^\s*(?:offramp bundles[^\n]*\n\n)?(\S+) (\S+) \(/.exec(part)).map((m) => `${m![1]}@${m![2]}`);
    const bundled = bom.components.filter((c) => c.scope === 'required');
    expect(bundled.length + bom.components.filter((c) => c.scope === 'optional').length).toBe(bom.components.length);
    expect(bundled.map((c) => `${fullName(c)}@${c.version}`).sort()).toEqual(credited.sort());
    for (const name of ['commander', 'zod', 'undici', 'conf', 'decimal.js', 'hono', 'exceljs']) expect(bundled.map(fullName)).toContain(name);
    for (const name of ['vitest', 'esbuild', 'typescript', '@napi-rs/keyring']) expect(bundled.map(fullName)).not.toContain(name);
  });
});
