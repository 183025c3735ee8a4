// Builds dist/ from src/ with esbuild: code-split so that each command's module is its own
// chunk, loaded only when that command runs, then each file turned into CommonJS.
//
// Why CommonJS: esbuild splits only ESM output, but Node loads ESM slower at start-up (its
// ESM loader costs ~12 ms to start and each module more to resolve, read and link than a
// require), and on Node 20 only CommonJS code can use a V8 code cache (src/compile-cache.ts).
// Measured on Node 20 (BENCHMARKS.md): `tx get --json` 3.4x bare node as ESM, 3.1x as
// CommonJS, 2.8x with the code cache. So the split ESM chunks are transformed file by file:
// `import` to `require`, `import()` to a deferred `require` (still loaded on first use),
// each file strict as its ESM original was; dist/package.json marks them CommonJS.
import { createHash } from 'node:crypto';
import { build, transform } from 'esbuild';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const dist = new URL('../dist', import.meta.url).pathname;
// Built beside dist/ and swapped in whole, so a process running the CLI meanwhile never
// sees half a build, and stale chunks never linger.
const outdir = `${dist}.tmp-${process.pid}`;
const BUILD_ID_SLOT = 'offramp-build-id-slot';

// What bundled dependencies make every start pay for without using it (measured in
// BENCHMARKS.md):
const startupTrims = {
  name: 'startup-trims',
  setup(b) {
    // `import process from 'node:process'` (chalk) builds an ESM facade of the process
    // object, reading every getter on it: that opens process.stdin and loads the report
    // module. The default export is the global process object itself, so that is used.
    // (A named import from node:process fails the build, and so does a property read off
    // `import * as process`: see logOverride below.)
    b.onResolve({ filter: /^(node:)?process$/ }, (args) => (args.kind === 'import-statement' ? { path: 'process', namespace: 'startup-trims' } : undefined));
    b.onLoad({ filter: /^process$/, namespace: 'startup-trims' }, () => ({ contents: 'export default globalThis.process;', loader: 'js' }));
    // commander requires node:child_process at load, for running subcommands as separate
    // executables, which the tree never does. Required on first use instead.
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'lazy-child-process', namespace: 'startup-trims' } : undefined,
    );
    b.onLoad({ filter: /^lazy-child-process$/, namespace: 'startup-trims' }, () => ({
      contents: "let cp; module.exports = new Proxy({}, { get: (_, key) => (cp ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
    // undici asserts its invariants with node:assert (~2 ms to load, with its error
    // formatting and colour support); an invariant that holds needs none of it. A call
    // whose value is falsy, or any other use of the module, loads the real one.
    b.onResolve({ filter: /^node:assert$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]/.test(args.importer) ? { path: 'lazy-assert', namespace: 'startup-trims' } : undefined,
    );
    b.onLoad({ filter: /^lazy-assert$/, namespace: 'startup-trims' }, () => ({
      contents: [
        "let real; const load = () => (real ??= require('node:assert'));",
        "function assert(value, message) { if (!value) load()(value, message ?? 'undici: internal assertion failed'); }",
        'module.exports = new Proxy(assert, { get: (_, key) => load()[key] });',
      ].join('\n'),
      loader: 'js',
    }));
    // undici loads all of node:http (~3 ms: agent, client, server, parser bindings) for
    // two things: an identity check in util.js's destroy() (a stream can be an
    // IncomingMessage only once node:http is loaded, so the check loads it only for a class
    // of that name) and the default maxHeaderSize of a Client built without one (ours pass
    // it: src/lib/client/http.ts), read on first use instead.
    b.onLoad({ filter: /[\\/]undici[\\/]lib[\\/](core[\\/]util|dispatcher[\\/]client)\.js$/ }, async (args) => ({
      contents: replaceExactly(await readFile(args.path, 'utf8'), args.path, args.path.endsWith('util.js') ? [
        ["const { IncomingMessage } = require('node:http')\n", "let IncomingMessage\nconst isIncomingMessage = (C) => C?.name === 'IncomingMessage' && C === (IncomingMessage ??= require('node:http').IncomingMessage)\n"],
        ['Object.getPrototypeOf(stream).constructor === IncomingMessage', 'isIncomingMessage(Object.getPrototypeOf(stream).constructor)'],
      ] : [
        ["const http = require('node:http')\n", ''],
        ['const getDefaultNodeMaxHeaderSize = http &&\n  http.maxHeaderSize &&', "const getDefaultNodeMaxHeaderSize = () => ((http) => http &&\n  http.maxHeaderSize &&"],
        ["  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }\n", "  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') })(require('node:http'))()\n"],
      ]),
      loader: 'js',
    }));
    // undici's HTTP/2 client (which loads node:http2 and node:tls) runs only on a connection
    // that negotiated h2, and ours never offer it (allowH2 stays off: ALPN http/1.1 only).
    b.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/ }, () => ({
      contents: "module.exports = function connectH2() { throw new Error('HTTP/2 is not part of the offramp build (allowH2 is off)'); };",
      loader: 'js',
    }));
  },
};

try {
  const result = await build({
    entryPoints: {
      main: 'src/main.ts',
      // Node 20's code cache, which dist/main.js sets up before a command loads.
      'compile-cache': 'src/compile-cache.ts',
      // The programmatic emulator (startEmulator) for benchmarks and other tools.
      emulator: 'src/emulator/index.ts',
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
    define: { __OFFRAMP_VERSION__: JSON.stringify(pkg.version), __OFFRAMP_BUILD_ID__: JSON.stringify(BUILD_ID_SLOT) },
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'warning',
    plugins: [startupTrims],
    // A read of an export a module does not have is an error, not a warning that leaves
    // undefined in its place (this guards the node:process trim above, among others).
    logOverride: { 'import-is-undefined': 'error' },
    metafile: true,
  });
  await toCommonJs(outdir, result.metafile);
  writeFileSync(`${outdir}/THIRD-PARTY-NOTICES.txt`, notices(result.metafile));
  const render = `${outdir}/help-render.js`;
  const { renderHelpSnapshot } = createRequire(import.meta.url)(render);
  writeFileSync(`${outdir}/help.json`, `${JSON.stringify(renderHelpSnapshot())}\n`);
  rmSync(render);
  stampBuildId(outdir);
} catch (err) {
  rmSync(outdir, { recursive: true, force: true });
  throw err;
}

rmSync(dist, { recursive: true, force: true });
renameSync(outdir, dist);

/** `text` with each `[from, to]` replaced; `from` must occur exactly once (a changed dependency fails the build). */
function replaceExactly(text, file, pairs) {
  for (const [from, to] of pairs) {
    const count = text.split(from).length - 1;
    if (count !== 1) throw new Error(`startup trim: expected one ${JSON.stringify(from)} in ${file}, found ${count}`);
    text = text.replace(from, () => to);
  }
  return text;
}

/**
 * Every .js file of the build, from split ESM to CommonJS (see the top of this file). A
 * dynamic import() left in the output would start Node's ESM loader after all, and fail
 * under Node 20's code cache (vm.Script there has no module loader), so one left behind
 * fails the build. Near its top, each file has a `// holds:` line naming the packages and
 * source modules in it (the transform drops esbuild's per-module comments); the startup
 * test reads it.
 */
async function toCommonJs(dir, metafile) {
  const holds = new Map();
  for (const [out, { inputs }] of Object.entries(metafile.outputs)) {
    const names = Object.keys(inputs).map((input) => /^(node_modules\/(?:@[^/]+\/)?[^/]+|src\/[^/]+(?:\/[^/.]+)?)/.exec(input)?.[1] ?? input);
    holds.set(resolve(out), [...new Set(names)].sort().join(' '));
  }
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
      banner: `"use strict";\n// holds: ${holds.get(resolve(path)) ?? '?'}`,
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
 * The build's identity, a hash of everything in it, written into compile-cache.js where
 * the bundler left BUILD_ID_SLOT: the code cache of one build is never offered to another.
 */
function stampBuildId(dir) {
  const hash = createHash('sha256');
  for (const file of readdirSync(dir, { recursive: true }).map(String).sort()) {
    // compile-cache.js too, as it is before the stamp: a change to the cache's own code is a new build.
    if (!/\.(js|json)$/.test(file)) continue;
    hash.update(file).update('\0').update(readFileSync(`${dir}/${file}`)).update('\0');
  }
  const path = `${dir}/compile-cache.js`;
  const code = readFileSync(path, 'utf8');
  if (!code.includes(BUILD_ID_SLOT)) throw new Error('compile-cache.js has no build id slot');
  writeFileSync(path, code.replaceAll(BUILD_ID_SLOT, hash.digest('hex').slice(0, 16)));
}

/**
 * The licence of every package bundled into dist/ (their comments are not kept in the
 * chunks): name, version, licence, and the package's own licence text.
 */
function notices(metafile) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(m[1]);
  }
  const sections = [...dirs].sort().map((dir) => {
    const pkg = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
    const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)([.-]|$)/i.test(f));
    const text = file ? readFileSync(`${dir}/${file}`, 'utf8').trim() : `(no licence file in the package; package.json says ${pkg.license})`;
    return `${pkg.name} ${pkg.version} (${pkg.license ?? 'see below'})\n\n${text}\n`;
  });
  return `offramp bundles these packages into dist/; their licences follow.\n\n${sections.join(`\n${'-'.repeat(72)}\n\n`)}`;
}
