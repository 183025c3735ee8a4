// The library entry `offramp-cli/emulator` (package.json "exports"): the code is
// dist/emulator.js, which build.mjs makes from src/emulator/index.ts; this step adds its
// type declarations.
//
// TypeScript emits them from the sources; the public surface is declared in
// src/emulator/types.ts, clock.ts and errors.ts, which import nothing else, so the shipped
// declarations need none of our dependencies' types (the package has no dependencies to
// install them). The step fails the build if the declarations ever reach further.
//
// They ship as .d.cts beside the CommonJS build (dist/ is CommonJS: see build.mjs), with
// their relative imports renamed to match, under dist/types/ in the layout of src/.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const ENTRY = 'emulator/index';

export function buildEmulatorLibrary(dist) {
  const out = mkdtempSync(join(tmpdir(), 'offramp-dts-'));
  try {
    const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
    execFileSync(
      process.execPath,
      [
        tsc,
        '--ignoreConfig',
        // Emit only: type errors are `tsc --noEmit`'s to report, not the build's.
        '--noCheck',
        '--declaration',
        '--emitDeclarationOnly',
        '--outDir', out,
        '--rootDir', join(root, 'src'),
        '--module', 'nodenext',
        '--moduleResolution', 'nodenext',
        '--target', 'es2022',
        '--lib', 'es2023',
        '--types', 'node',
        '--strict',
        '--skipLibCheck',
        join(root, 'src', `${ENTRY}.ts`),
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const shipped = closure(out);
    for (const [rel, text] of shipped) {
      const target = join(dist, 'types', `${rel}.d.cts`);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.js\2/g, '$1$2$3.cjs$2'));
    }
    writeFileSync(join(dist, 'emulator.d.cts'), `export * from './types/${ENTRY}.cjs';\n`);
  } catch (err) {
    const detail = err.stdout ? `${err.stdout}${err.stderr}` : err.message;
    throw new Error(`emulator library declarations: ${detail}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The entry's declaration and every declaration it imports, by path relative to src/ without `.d.ts`. */
function closure(out) {
  const seen = new Map();
  const visit = (rel) => {
    if (seen.has(rel)) return;
    const text = readFileSync(join(out, `${rel}.d.ts`), 'utf8');
    seen.set(rel, text);
    for (const [, spec] of text.matchAll(/(?:from\s+|import\()['"]([^'"]+)['"]/g)) {
      if (!spec.startsWith('.')) {
        throw new Error(`${rel}.d.ts imports "${spec}": the published declarations must not need other packages (declare the public types in src/emulator/types.ts)`);
      }
      visit(relative(out, resolve(out, dirname(rel), spec)).replace(/\.js$/, ''));
    }
  };
  visit(ENTRY);
  return seen;
}
