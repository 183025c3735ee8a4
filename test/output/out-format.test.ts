// A file is what its name says (formatOfFile): the extension decides the format, -o may
// only agree with it, and an extension the command cannot write is refused, each a usage
// error before anything is sent.
import { describe, expect, it } from 'vitest';
import { formatOfFile } from '../../src/lib/output/format.js';
import { UsageError } from '../../src/lib/errors.js';

const EXPORT = ['csv', 'json', 'ndjson', 'xlsx'] as const;

describe('formatOfFile', () => {
  it.each([
    ['rev.xlsx', undefined, 'xlsx'],
    ['rev.XLSX', 'xlsx', 'xlsx'],
    ['./out/2026.10.csv', undefined, 'csv'],
    ['a.ndjson', 'ndjson', 'ndjson'],
    ['rows', 'json', undefined],
    ['/dev/fd/3', undefined, undefined],
    ['.csv', undefined, undefined],
  ])('%s with -o %s: %s', (out, given, want) => {
    expect(formatOfFile(out, given, EXPORT)).toBe(want);
  });

  it.each([
    ['x.xlsx', 'csv', '-o csv contradicts --out x.xlsx, which names a .xlsx file'],
    ['x.json', 'ndjson', '-o ndjson contradicts --out x.json, which names a .json file'],
    ['x.txt', undefined, '--out x.txt: this command cannot write .txt files'],
    ['dir.v2/x.tsv', 'csv', '--out dir.v2/x.tsv: this command cannot write .tsv files'],
  ])('%s with -o %s: refused', (out, given, message) => {
    let thrown: unknown;
    try {
      formatOfFile(out, given, EXPORT);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as UsageError).message).toBe(message);
    expect((thrown as UsageError).exitCode).toBe(2);
  });
});
