// Comments that stay true (docs/development.md, "Comments"): a comment in src/ names no
// file that does not exist in the repository, and no issue number (the reason belongs in
// the comment; the history is in git).
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SKIP = new Set(['node_modules', '.git', 'dist', 'build', '.build', 'coverage']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name) || e.name.startsWith('dist.tmp-')) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? files(path) : [path];
  });
}

const all = files(ROOT);
const names = new Set(all.map((f) => basename(f)));
const sources = all.filter((f) => relative(ROOT, f).startsWith('src/') && /\.(ts|mts|cts)$/.test(f));

/** The comment text of each line: after `//` (not `://`), or a block comment's line. */
function comments(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let inBlock = false;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (inBlock || line.startsWith('/*')) {
      out.push({ line: i + 1, text: line });
      inBlock = !line.includes('*/');
      return;
    }
    const at = raw.search(/(?<![:'"`\\])\/\/(?!\/)/);
    if (at >= 0) out.push({ line: i + 1, text: raw.slice(at) });
  });
  return out;
}

const FILE = /(?<![\w@-])((?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|mts|cts|mjs|cjs|js|md|json|yaml))\b/g;

describe('comments in src/', () => {
  it('name only files that exist', () => {
    const missing: string[] = [];
    for (const file of sources) {
      for (const c of comments(readFileSync(file, 'utf8'))) {
        for (const [, name] of c.text.matchAll(FILE)) {
          // A package's name (decimal.js), a placeholder (FILE.json) or a URL path (__emulator/…) is no file.
          // A bare `*.json` is a file the tool writes (`checkpoint.json`), not one in the repository.
          if (/^[a-z]+\.js$/.test(name!) || /^[A-Z]+\./.test(name!) || name!.startsWith('__') || (!name!.includes('/') && name!.endsWith('.json'))) continue;
          const found = name!.includes('/')
            ? existsSync(join(ROOT, name!)) || existsSync(resolve(dirname(file), name!)) || all.some((f) => f.endsWith(`/${name}`) || f.endsWith(`/${name!.replace(/\.js$/, '.ts')}`))
            : names.has(name!) || names.has(name!.replace(/\.js$/, '.ts'));
          if (!found) missing.push(`${relative(ROOT, file)}:${c.line}: ${name}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('cite no issue number', () => {
    const cited: string[] = [];
    for (const file of sources) {
      for (const c of comments(readFileSync(file, 'utf8'))) {
        if (/\bissues? #?\d+\b|(?<![\w&])#\d{1,4}\b/i.test(c.text)) cited.push(`${relative(ROOT, file)}:${c.line}: ${c.text.trim()}`);
      }
    }
    expect(cited).toEqual([]);
  });
});
