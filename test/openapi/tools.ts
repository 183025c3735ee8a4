// The third-party OpenAPI tools the tests drive as a partner's engineer would, each through
// its own command line: Redocly CLI (lint), openapi-format (applies an Overlay) and
// openapi-typescript (types from the document). All are dev dependencies; openapi-typescript
// sits in test/openapi/typegen with the TypeScript 5 it needs (its package.json says why).
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const fromRoot = createRequire(join(root, 'package.json'));
const fromTypegen = createRequire(new URL('./typegen/package.json', import.meta.url).pathname);

const bin = (require: NodeRequire, pkg: string, file: string) => join(dirname(require.resolve(`${pkg}/package.json`)), file);

export const REDOCLY = bin(fromRoot, '@redocly/cli', 'bin/cli.js');
export const OPENAPI_FORMAT = bin(fromRoot, 'openapi-format', 'bin/cli.js');
export const OPENAPI_TYPESCRIPT = bin(fromTypegen, 'openapi-typescript', 'bin/cli.js');
export const REDOCLY_CONFIG = new URL('./redocly.yaml', import.meta.url).pathname;

/**
 * No telemetry, no update check (both would reach outside this machine), and a home of
 * its own for anything a tool keeps there.
 */
const quiet = () => ({
  ...process.env,
  HOME: mkdtempSync(join(tmpdir(), 'offramp-tool-home-')),
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
  NO_COLOR: '1',
});

export type LintResult = { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; location?: unknown }[] };

/**
 * `redocly lint` of one or more documents in one run, with the project's configuration
 * (redocly.yaml here): the totals and problems of them all.
 */
export async function redoclyLint(files: string[]): Promise<LintResult> {
  const r = await exec(process.execPath, [REDOCLY, 'lint', '--config', REDOCLY_CONFIG, '--format', 'json', ...files], { env: quiet(), cwd: root, maxBuffer: 16 * 1024 * 1024 }).catch(
    (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }),
  );
  // One JSON report per document, written one after the other.
  const reports = jsonValues(r.stdout) as LintResult[];
  if (reports.length !== files.length) throw new Error(`redocly lint printed ${reports.length} reports for ${files.length} files:\n${r.stdout.slice(0, 2000)}`);
  return {
    totals: { errors: reports.reduce((n, x) => n + x.totals.errors, 0), warnings: reports.reduce((n, x) => n + x.totals.warnings, 0) },
    problems: reports.flatMap((x) => x.problems),
  };
}

/** JSON values written back to back (`{...}{...}`). */
function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') {
      if (depth++ === 0) start = i;
    } else if ((ch === '}' || ch === ']') && --depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
  }
  return values;
}

/** `openapi-format BASE --overlayFile OVERLAY -o OUT` (no sorting: keys stay in the document's order). */
export async function applyOverlay(base: string, overlay: string, out: string): Promise<void> {
  await exec(process.execPath, [OPENAPI_FORMAT, base, '--overlayFile', overlay, '--no-sort', '-o', out], { env: quiet(), cwd: root });
}

/** `openapi-typescript DOCUMENT -o OUT`. */
export async function generateTypes(document: string, out: string): Promise<void> {
  await exec(process.execPath, [OPENAPI_TYPESCRIPT, document, '-o', out], { env: quiet(), cwd: root });
}

/** The project's own `tsc` (TypeScript 7), as `tsc -p DIR`: its exit code and what it printed. */
export async function typeCheck(project: string): Promise<{ code: number; output: string }> {
  const tsc = join(dirname(fromRoot.resolve('typescript/package.json')), 'bin', 'tsc');
  try {
    const r = await exec(process.execPath, [tsc, '-p', project], { cwd: root });
    return { code: 0, output: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
