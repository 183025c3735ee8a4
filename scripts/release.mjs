// npm run release: everything a release publishes, into build/ (docs/install.md):
//   offramp-cli-<version>.tgz          the npm package (npm pack; its prepare builds dist/)
//   offramp-linux-x64, -arm64          the standalone executables (scripts/build-binary.mjs)
//   <sbom file>                        the package's software bill of materials, when it ships one
//   offramp-linux-x64.cdx.json, …      each executable's own (its Node.js and what it bundles)
// each with a .sha256 beside it, in sha256sum's format (`sha256sum -c FILE.sha256`).
// What an earlier release left in build/ goes first, so build/ holds one release only; the
// downloaded runtimes under build/.work stay, pinned and checked.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { buildBinaries } from './build-binary.mjs';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'build');

/** A software bill of materials by the names its formats use (CycloneDX, SPDX, or named so). */
const SBOM = /(^|\/)([^/]*sbom[^/]*|[^/]*\.(cdx|spdx)(\.json|\.xml)?|bom\.(json|xml))$/i;

function checksum(file) {
  const sum = createHash('sha256').update(readFileSync(file)).digest('hex');
  writeFileSync(`${file}.sha256`, `${sum}  ${basename(file)}\n`);
}

mkdirSync(out, { recursive: true });
for (const entry of readdirSync(out)) if (entry !== '.work') rmSync(join(out, entry), { recursive: true, force: true });

const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
const artifacts = [join(out, packed.filename)];
// Taken from the package as packed, so the SBOM published is the one the tarball holds.
const sboms = packed.files.map((f) => f.path).filter((p) => SBOM.test(p));
for (const path of sboms) {
  copyFileSync(join(root, path), join(out, basename(path)));
  artifacts.push(join(out, basename(path)));
}
const executables = await buildBinaries();
artifacts.push(...executables, ...executables.map((file) => `${file}.cdx.json`));
// The executables have theirs from their build.
for (const file of artifacts) if (!executables.includes(file)) checksum(file);

console.log(`release ${packed.version} in build/:`);
for (const file of artifacts) console.log(`  ${basename(file)}  (+ .sha256)`);
if (sboms.length === 0) console.log('  (the package ships no software bill of materials)');
