// Redocly CLI lints docs/openapi.yaml clean: no error and no warning under its recommended
// rules, one turned off with its reason (test/openapi/redocly.yaml). One run per test run.
import { describe, expect, it } from 'vitest';
import { DOCUMENT_PATH } from '../helpers/openapi.js';
import { redoclyLint } from './tools.js';

describe('docs/openapi.yaml under Redocly CLI', () => {
  it('lints clean', { timeout: 60_000 }, async () => {
    const result = await redoclyLint([DOCUMENT_PATH.pathname]);
    expect(result.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(result.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});
