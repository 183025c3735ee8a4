// `offramp openapi` and `offramp conform --overlay FILE` from the command line: the
// document as committed (YAML, or JSON with -o json), and the overlay of the very report
// conform printed, written whatever conform's exit; a file that cannot be written is
// refused before any request.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Overlay } from '../../src/lib/conform/overlay.js';
import type { Finding } from '../../src/lib/conform/verdicts.js';
import { emulatorFor } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { DOCUMENT_PATH } from '../helpers/openapi.js';

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});
const dir = mkdtempSync(join(tmpdir(), 'offramp-openapi-cli-'));

describe('offramp openapi', () => {
  it('prints docs/openapi.yaml, and the same document as JSON with -o json', async () => {
    const yaml = await runMain(['openapi']);
    expect(yaml).toEqual({ code: 0, stdout: readFileSync(DOCUMENT_PATH, 'utf8'), stderr: '' });
    const json = await runMain(['openapi', '-o', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(parse(yaml.stdout));
  });
});

describe('offramp conform --overlay', { timeout: 30_000 }, () => {
  it('refuses an empty name or a directory it cannot write to, before any request', async () => {
    const log: string[] = [];
    const emu = await emulatorFor({ log: (line) => log.push(line) });
    closers.push(emu.close);
    const empty = await runMain(['conform', '--overlay', ''], { env: emu.env });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^error: USAGE: --overlay: give a file name/);
    const nowhere = await runMain(['conform', '--overlay', join(dir, 'missing', 'x.yaml')], { env: emu.env });
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toMatch(/--overlay .*x\.yaml: its directory does not exist or cannot be written/);
    expect(log).toEqual([]);
  });

  it('writes the overlay of the report it printed: YAML, or JSON for a .json name', async () => {
    const emu = await emulatorFor();
    closers.push(emu.close);
    const yamlFile = join(dir, 'emulator.overlay.yaml');
    const r = await runMain(['conform', '--overlay', yamlFile, '--json'], { env: emu.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as { findings: Finding[] };
    const written = parse(readFileSync(yamlFile, 'utf8')) as Overlay;
    // Every action stands for a point conform found the service to act on.
    const acted = new Set(report.findings.filter((f) => ['same', 'handled', 'needs-setting', 'saved'].includes(f.verdict)).map((f) => f.point));
    for (const a of written.actions) expect(acted).toContain(a['x-offramp-point']);
    expect(written.actions.find((a) => a['x-offramp-point'] === 'status: create')!.update).toHaveProperty('201');

    const jsonFile = join(dir, 'emulator.overlay.json');
    const table = await runMain(['conform', '--overlay', jsonFile], { env: emu.env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stderr).toMatch(new RegExp(`^conform: the overlay \\(\\d+ actions\\) is in ${jsonFile.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'));
    expect(JSON.parse(readFileSync(jsonFile, 'utf8'))).toMatchObject({ overlay: '1.0.0', actions: expect.any(Array) });
  });
});
