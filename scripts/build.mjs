// Builds dist/ from src/ with esbuild: code-split so that each command's module is its own
// chunk, loaded only when that command runs, then each file turned into CommonJS.
//
// Why CommonJS: esbuild splits only ESM output, but Node starts its ESM loader at a fixed
// cost and resolves, reads and links each ES module more slowly than a require (measured:
// BENCHMARKS.md, "Startup"). So the split ESM chunks are transformed file by file: `import`
// to `require`, `import()` to a deferred `require` (still loaded on first use), each file
// strict as its ESM original was; dist/package.json marks them CommonJS.
//
// Dependencies are bundled as they are published: nothing in them is rewritten or
// substituted, so any release of them can be taken as it comes (docs/development.md, "Startup").
import { build, transform } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { bundledPackageDirs, sbom } from './sbom.mjs';
import { relative, resolve } from 'node:path';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const dist = new URL('../dist', import.meta.url).pathname;
// Built beside dist/ and swapped in whole, so a process running the CLI meanwhile never
// sees half a build, and stale chunks never linger.
const outdir = `${dist}.tmp-${process.pid}`;
/** What each file of dist/ holds, for the startup test: outside dist/, never shipped. */
const manifest = new URL('../.build/manifest.json', import.meta.url).pathname;

try {
  const result = await build({
    entryPoints: {
      main: 'src/main.ts',
      // The programmatic emulator (startEmulator) for benchmarks and other tools.
      emulator: 'src/emulator/index.ts',
      // Required by bin/offramp.js before the compile cache is on: Node's modules only.
      ancestry: 'src/lib/fs/ancestry.ts',
      // Build-time only: renders dist/help.json, then is removed (src/help/snapshot.ts).
      'help-render': 'src/help/render.ts',
    },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    // Dependencies are bundled too: one file per chunk instead of hundreds of small
    // modules to resolve and read, and only the parts of zod (etc.) that are used.
    // (Bundled CommonJS packages call require() for Node's built-ins: every file becomes
    // CommonJS below, where require is the module's own.)
    sourcemap: false,
    legalComments: 'none',
    define: { __OFFRAMP_VERSION__: JSON.stringify(pkg.version) },
    chunkNames: 'chunks/[name]-[hash]',
    // unzipper (exceljs's reader, never called here) requires the AWS SDK only inside its
    // open-from-S3 helper: left as a plain require, never bundled and never run.
    // @napi-rs/keyring is native code, which cannot be bundled: an optional dependency,
    // installed beside the package where a prebuilt binary exists, required at run time
    // (src/lib/config/keys.ts), and the CLI does without it where it is missing.
    external: ['@aws-sdk/client-s3', '@napi-rs/keyring'],
    logLevel: 'warning',
    // A read of an export a module does not have is an error, not a warning that leaves
    // undefined in its place.
    logOverride: { 'import-is-undefined': 'error' },
    metafile: true,
  });
  await toCommonJs(outdir);
  writeManifest(result.metafile);
  writeFileSync(`${outdir}/THIRD-PARTY-NOTICES.txt`, notices(result.metafile));
  writeFileSync(`${outdir}/sbom.cdx.json`, sbom(result.metafile, { optional: true }));
  const render = `${outdir}/help-render.js`;
  const { renderHelpSnapshot } = createRequire(import.meta.url)(render);
  writeFileSync(`${outdir}/help.json`, `${JSON.stringify(await renderHelpSnapshot())}\n`);
  rmSync(render);
} catch (err) {
  rmSync(outdir, { recursive: true, force: true });
  throw err;
}

rmSync(dist, { recursive: true, force: true });
renameSync(outdir, dist);

/**
 * Every .js file of the build, from split ESM to CommonJS (see the top of this file). A
 * dynamic import() left in the output would start Node's ESM loader after all, so one left
 * behind fails the build.
 */
async function toCommonJs(dir) {
  const files = readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.js'));
  for (const file of files) {
    const path = `${dir}/${file}`;
    const result = await transform(readFileSync(path, 'utf8'), {
      format: 'cjs',
      platform: 'node',
      target: 'node20.19',
      // import() becomes Promise.resolve().then(() => require(...)): still loaded on first use.
      supported: { 'dynamic-import': false },
      define: { 'import.meta.url': 'import_meta_url' },
      banner: '"use strict";',
      logLevel: 'warning',
      logOverride: { 'import-is-undefined': 'error' },
    });
    let code = result.code;
    if (code.includes('import_meta_url')) code = code.replace(/\n/, `\nconst import_meta_url = require("node:url").pathToFileURL(__filename).href;\n`);
    const stripped = code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    if (/(?<![\w$.])import\s*\(/.test(stripped)) throw new Error(`${file}: a dynamic import() is left after the CommonJS transform`);
    writeFileSync(path, code);
  }
  writeFileSync(`${dir}/package.json`, `${JSON.stringify({ type: 'commonjs' })}\n`);
}

/**
 * `.build/manifest.json`: for each file of dist/ (by its path below dist/), the packages
 * and source modules bundled into it, as esbuild's metafile says. The startup test reads it
 * to tell what a run loaded; it stays outside dist/ so nothing of it ships.
 */
function writeManifest(metafile) {
  const files = {};
  for (const [out, { inputs }] of Object.entries(metafile.outputs)) {
    if (!out.endsWith('.js')) continue;
    const names = Object.keys(inputs).map((input) => /^(node_modules\/(?:@[^/]+\/)?[^/]+|src\/[^/]+(?:\/[^/.]+)?)/.exec(input)?.[1] ?? input);
    files[relative(outdir, resolve(out))] = [...new Set(names)].sort();
  }
  mkdirSync(resolve(manifest, '..'), { recursive: true });
  writeFileSync(manifest, `${JSON.stringify({ files }, null, 1)}\n`);
}

/**
 * A package that ships no licence file: the licence section of its README, else the
 * standard text of the licence its package.json declares, with the author named there.
 * A package with neither fails the build: what cannot be credited must not be shipped.
 */
function licenceWithoutFile(dir, pkg) {
  const readme = readdirSync(dir).find((f) => /^readme/i.test(f));
  const section = readme && /^#+\s*licen[cs]e\b[^\n]*\n([\s\S]*?)(?=^#+\s|(?![\s\S]))/im.exec(readFileSync(`${dir}/${readme}`, 'utf8'));
  if (section && /permission|licen[cs]ed|copyright/i.test(section[1])) return `(from the package's README)\n\n${section[1].trim()}`;
  const author = typeof pkg.author === 'string' ? pkg.author : pkg.author?.name;
  const holder = `Copyright (c) ${author ?? `the authors of ${pkg.name}`}`;
  const standard = standardLicence(pkg.license);
  if (!standard) throw new Error(`${pkg.name} ${pkg.version} ships no licence and declares none the build knows (${pkg.license}); it cannot be bundled`);
  return `(the package declares ${pkg.license} and ships its text nowhere; the standard ${pkg.license} text follows)\n\n${holder}\n\n${standard}`;
}

/** The standard text of the licences packages here declare without shipping it (hoisted: the build runs above). */
function standardLicence(id) {
  const texts = {
  ISC: 'Permission to use, copy, modify, and/or distribute this software for any purpose with or without fee is hereby granted, provided that the above copyright notice and this permission notice appear in all copies.\n\nTHE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.',
  MIT: 'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files (the "Software"), to deal in the Software without restriction, including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the following conditions:\n\nThe above copyright notice and this permission notice shall be included in all copies or substantial portions of the Software.\n\nTHE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.',
  };
  return texts[id];
}

/**
 * The licence of every package bundled into dist/ (their comments are not kept in the
 * chunks): name, version, licence, and the package's own licence text.
 */
function notices(metafile) {
  const sections = bundledPackageDirs(metafile).map((dir) => {
    const pkg = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
    const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)([.-]|$)/i.test(f));
    const text = file ? readFileSync(`${dir}/${file}`, 'utf8').trim() : licenceWithoutFile(dir, pkg);
    return `${pkg.name} ${pkg.version} (${pkg.license ?? 'see below'})\n\n${text}\n`;
  });
  return `offramp bundles these packages into dist/; their licences follow.\n\n${sections.join(`\n${'-'.repeat(72)}\n\n`)}`;
}

// The library entry offramp-cli/emulator: its type declarations (scripts/build-emulator-lib.mjs).
(await import('./build-emulator-lib.mjs')).buildEmulatorLibrary(dist);
