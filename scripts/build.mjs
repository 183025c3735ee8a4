// Builds dist/ from src/ with esbuild: ESM, code-split so that each command's module is
// its own chunk, loaded only when that command runs.
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const dist = new URL('../dist', import.meta.url).pathname;
// Built beside dist/ and swapped in whole, so a process running the CLI meanwhile never
// sees half a build, and stale chunks never linger.
const outdir = `${dist}.tmp-${process.pid}`;

try {
  await build({
    entryPoints: {
      main: 'src/main.ts',
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
    // CommonJS dependencies call require() for Node's built-ins; ESM output gives them one.
    banner: { js: "import { createRequire as __offrampCreateRequire } from 'node:module'; const require = __offrampCreateRequire(import.meta.url);" },
    sourcemap: false,
    legalComments: 'none',
    define: { __OFFRAMP_VERSION__: JSON.stringify(pkg.version) },
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'warning',
  });
  const render = `${outdir}/help-render.js`;
  const { renderHelpSnapshot } = await import(render);
  writeFileSync(`${outdir}/help.json`, `${JSON.stringify(renderHelpSnapshot())}\n`);
  rmSync(render);
} catch (err) {
  rmSync(outdir, { recursive: true, force: true });
  throw err;
}

rmSync(dist, { recursive: true, force: true });
renameSync(outdir, dist);
