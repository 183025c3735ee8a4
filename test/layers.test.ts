// Layers point down (STYLE "Layers"): src/lib is the bottom, the emulator
// is built on it without the CLI's config (it is published alone, offramp-cli/emulator),
// and nothing imports in a circle. The graph is the one that runs: esbuild resolves every
// module of src/ as the build does, with type-only imports gone and dynamic ones kept.
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';

type Edge = { from: string; to: string; dynamic: boolean };

let edges: Edge[] = [];

beforeAll(async () => {
  const sources = readdirSync('src', { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/${f}`);
  const result = await build({
    entryPoints: sources,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    splitting: true,
    outdir: join(tmpdir(), 'offramp-layers'),
    logLevel: 'silent',
  });
  const inputs: Metafile['inputs'] = result.metafile.inputs;
  edges = Object.entries(inputs).flatMap(([from, input]) =>
    input.imports.filter((i) => !i.external && i.path.startsWith('src/')).map((i) => ({ from, to: i.path, dynamic: i.kind === 'dynamic-import' })),
  );
});

const show = (e: Edge) => `${e.from} → ${e.to}${e.dynamic ? ' (dynamic import)' : ''}`;
const under = (dir: string) => (path: string) => path.startsWith(dir);

/** The edges out of `layer` that reach anything but what `allowed` accepts. */
function crossing(layer: (path: string) => boolean, allowed: (path: string) => boolean): string[] {
  return edges.filter((e) => layer(e.from) && !layer(e.to) && !allowed(e.to)).map(show);
}

describe('the import graph of src/', () => {
  it('is the graph that runs (a sanity check: the emulator is seen importing the money module)', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges).toContainEqual({ from: 'src/emulator/index.ts', to: 'src/lib/money.ts', dynamic: false });
  });

  it('src/lib imports nothing above it: not the commands, the emulator, the help, cli.ts or main.ts', () => {
    expect(crossing(under('src/lib/'), (to) => to === 'src/version.ts')).toEqual([]);
  });

  it("the emulator imports nothing of the CLI's: not its config, commands, help, cli.ts or main.ts", () => {
    const isLib = under('src/lib/');
    const isConfig = under('src/lib/config/');
    expect(crossing(under('src/emulator/'), (to) => (isLib(to) && !isConfig(to)) || to === 'src/version.ts')).toEqual([]);
  });

  it('the commands reach the emulator only through its public index', () => {
    const internals = edges.filter((e) => e.from.startsWith('src/commands/') && e.to.startsWith('src/emulator/') && e.to !== 'src/emulator/index.ts');
    expect(internals.map(show)).toEqual([]);
  });

  it('has no cycle of static imports (a module would run before the one it needs has finished)', () => {
    const next = new Map<string, string[]>();
    for (const e of edges) if (!e.dynamic) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (node: string) => {
      state.set(node, 'open');
      path.push(node);
      for (const to of next.get(node) ?? []) {
        if (state.get(to) === 'open') cycles.push([...path.slice(path.indexOf(to)), to].join(' → '));
        else if (!state.has(to)) visit(to);
      }
      path.pop();
      state.set(node, 'done');
    };
    for (const node of next.keys()) if (!state.has(node)) visit(node);
    expect(cycles).toEqual([]);
  });

  it('keeps each file in its room: at most 8 loose modules in src/lib, the rest in folders by concern', () => {
    const loose = readdirSync('src/lib', { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.ts'));
    expect(loose.length, loose.map((e) => e.name).join(', ')).toBeLessThanOrEqual(8);
  });
});
