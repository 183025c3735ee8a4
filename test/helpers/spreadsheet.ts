// The spreadsheet programs users open our files in, where this machine has them: LibreOffice
// (headless Calc) imports CSV as a user's spreadsheet does, and openpyxl reads the workbooks
// back (CI installs libreoffice-calc-nogui and python3-openpyxl; tests skip, saying why,
// without them).
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A python3 that has openpyxl, or undefined. */
function openpyxlPython(): string | undefined {
  for (const python of ['/usr/bin/python3', 'python3']) {
    if (spawnSync(python, ['-c', 'import openpyxl'], { stdio: 'ignore' }).status === 0) return python;
  }
  return undefined;
}
export const PYTHON = openpyxlPython();
export const SOFFICE = spawnSync('soffice', ['--version'], { stdio: 'ignore' }).status === 0 ? 'soffice' : undefined;

/** Every sheet of each workbook as rows of cells: data type, value (floats by repr, so as decimals), number format. */
const READER = `
import json, sys, openpyxl
out = {}
for path in sys.argv[1:]:
    wb = openpyxl.load_workbook(path)
    out[path] = {}
    for ws in wb.worksheets:
        out[path][ws.title] = {'max_column': ws.max_column, 'rows': [[{'type': c.data_type, 'format': c.number_format, 'value': repr(c.value) if isinstance(c.value, float) else (c.value.isoformat() if hasattr(c.value, 'isoformat') else c.value)} for c in row] for row in ws.iter_rows()]}
print(json.dumps(out))
`;
export type XCell = { type: string; format: string; value: string | number | null };
export type Sheets = Record<string, { max_column: number; rows: XCell[][] }>;

export function readWorkbooks(dir: string, paths: string[]): Record<string, Sheets> {
  const reader = join(dir, 'read.py');
  writeFileSync(reader, READER);
  return JSON.parse(execFileSync(PYTHON!, [reader, ...paths], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as Record<string, Sheets>;
}

/**
 * CSV files through LibreOffice's own import (one run for all: it takes seconds to start,
 * with a profile of its own), saved as XLSX in `dir`/calc. Filter options: separators comma,
 * semicolon and TAB (ASCII codes joined by `/`), `"` quotes, UTF-8, from line 1. Returns the
 * XLSX paths, in order.
 */
export function calcImport(dir: string, csvPaths: string[]): string[] {
  const converted = spawnSync(
    SOFFICE!,
    [`-env:UserInstallation=file://${join(dir, 'profile')}`, '--headless', '--infilter=CSV:44/59/9,34,76,1', '--convert-to', 'xlsx', '--outdir', join(dir, 'calc'), ...csvPaths],
    { encoding: 'utf8', timeout: 170_000 },
  );
  if (converted.status !== 0) throw new Error(`soffice failed: ${converted.stderr}`);
  return csvPaths.map((p) => join(dir, 'calc', p.slice(p.lastIndexOf('/') + 1).replace(/\.csv$/, '.xlsx')));
}
