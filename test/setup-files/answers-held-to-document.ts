// Run before every test file (vitest's setupFiles, which run per file even with isolation
// off, where a helper's top-level code runs once per worker): after each test, every
// answer and delivery an emulator gave is held to docs/openapi.yaml (test/helpers/openapi.ts).
import { afterEach } from 'vitest';
import { takeBroken } from '../helpers/openapi.js';

afterEach(() => {
  const problems = takeBroken();
  if (problems.length > 0) {
    throw new Error(`the emulator gave ${problems.length} answer(s) that docs/openapi.yaml forbids:\n${problems.slice(0, 10).join('\n')}`);
  }
});
