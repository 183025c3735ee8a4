// Builds dist/ from src/ with esbuild: ESM, code-split so that each command's module is
// its own chunk, loaded only when that command runs. Dependencies stay in node_modules.
import { build } from 'esbuild';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const outdir = new URL('../dist/', import.meta.url).pathname;

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: {
    main: 'src/main.ts',
    // The programmatic emulator (startEmulator) for benchmarks and other tools.
    ...(existsSync('src/emulator/index.ts') ? { emulator: 'src/emulator/index.ts' } : {}),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  packages: 'external',
  sourcemap: false,
  legalComments: 'none',
  define: { __OFFRAMP_VERSION__: JSON.stringify(pkg.version) },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
