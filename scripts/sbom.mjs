// CycloneDX 1.5 bills of materials: what runs when a user runs what we ship, which their
// `npm audit` cannot see (the package declares no runtime dependency; everything is bundled).
//   - dist/sbom.cdx.json (scripts/build.mjs): the packages bundled into dist/, and the optional
//     native ones installed beside it (the keychain module and its platform builds), scope
//     "optional";
//   - build/offramp-linux-<arch>.cdx.json (scripts/build-binary.mjs): the Node.js runtime
//     inside that executable, and the packages bundled into it.
// Each package is named at the version the lock file pins (its bom-ref is its path in the
// lock), with its licence and the lock's integrity hash. No timestamp: the same sources make
// the same file.
import { version as esbuildVersion } from 'esbuild';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** The directory of every package with code in the bundle, as esbuild's metafile names its inputs (nested copies too). */
export function bundledPackageDirs(metafile) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(m[1]);
  }
  return [...dirs].sort();
}

/** One package as a component: `name` and `version` as installed, checked against the lock's entry `ref`. */
function component(ref, name, version, pinned, scope) {
  if (!pinned || pinned.version !== version) throw new Error(`${name} ${version} is shipped but the lock file pins ${ref} at ${pinned?.version ?? 'nothing'}: run npm ci`);
  const [group, base] = name.startsWith('@') ? name.split('/') : [undefined, name];
  const sha512 = /^sha512-(.+)$/.exec(pinned.integrity ?? '')?.[1];
  return {
    type: 'library',
    'bom-ref': ref,
    ...(group ? { group } : {}),
    name: base,
    version,
    scope,
    purl: `pkg:npm/${group ? `${encodeURIComponent(group)}/` : ''}${base}@${version}`,
    ...licences(pinned.license),
    ...hashes(sha512),
  };
}

function licences(licence) {
  return licence ? { licenses: [/^[\w.+-]+$/.test(licence) ? { license: { id: licence } } : { expression: licence }] } : {};
}

function hashes(sha512Base64) {
  return sha512Base64 ? { hashes: [{ alg: 'SHA-512', content: Buffer.from(sha512Base64, 'base64').toString('hex') }] } : {};
}

/** The optional dependencies of the package, and theirs, as the lock pins them (installed or not on this machine). */
function optionalComponents(lock) {
  const out = [];
  const seen = new Set();
  const visit = (deps) => {
    for (const name of Object.keys(deps ?? {}).sort()) {
      const ref = `node_modules/${name}`;
      if (seen.has(ref)) continue;
      seen.add(ref);
      const pinned = lock.packages[ref];
      out.push(component(ref, name, pinned?.version, pinned, 'optional'));
      visit(pinned?.optionalDependencies);
    }
  };
  visit(pkg.optionalDependencies);
  return out;
}

/**
 * The bill of materials, as the text of a file. `optional`: list the package's optional
 * dependencies too (not for an executable, which cannot load native modules). `runtime`: the
 * Node.js inside an executable, `{ name, version, integrity }` of the npm package it came from.
 */
export function sbom(metafile, { optional = false, runtime, subject = { type: 'application', 'bom-ref': pkg.name, name: pkg.name, version: pkg.version, purl: `pkg:npm/${pkg.name}@${pkg.version}` } } = {}) {
  const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));
  const bundled = bundledPackageDirs(metafile).map((dir) => {
    const installed = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
    // The lock's key for this copy: its path from the project's own node_modules.
    const ref = dir.slice(dir.indexOf('node_modules/'));
    return component(ref, installed.name, installed.version, { ...lock.packages[ref], license: installed.license ?? lock.packages[ref]?.license }, 'required');
  });
  const node = runtime && {
    type: 'platform',
    'bom-ref': `${runtime.name}@${runtime.version}`,
    name: runtime.name,
    version: runtime.version,
    description: `the Node.js ${runtime.version} runtime the executable is made of`,
    scope: 'required',
    purl: `pkg:npm/${runtime.name}@${runtime.version}`,
    ...licences('MIT'),
    ...hashes(/^sha512-(.+)$/.exec(runtime.integrity)?.[1]),
  };
  const doc = {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: {
      component: { ...subject, licenses: [{ license: { id: pkg.license } }] },
      tools: { components: [{ type: 'application', name: 'esbuild', version: esbuildVersion }] },
    },
    components: [...(node ? [node] : []), ...bundled, ...(optional ? optionalComponents(lock) : [])],
  };
  return `${JSON.stringify(doc, null, 1)}\n`;
}
