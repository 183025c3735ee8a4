// The command reference is the program's own help: docs/commands.md is generated from it,
// and this fails when the page is stale.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS_MD, commandsDoc, readHelp } from '../../scripts/commands-doc.js';

describe('docs/commands.md', () => {
  it("is every command's --help as the build renders it (npm run commands-doc rewrites it)", () => {
    const current = existsSync(COMMANDS_MD) ? readFileSync(COMMANDS_MD, 'utf8') : '';
    expect(current === commandsDoc(readHelp()), 'docs/commands.md is stale: run `npm run commands-doc` and commit it').toBe(true);
  });
});
