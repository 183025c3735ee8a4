// npm run test:dist: the tests of what is shipped beside the npm package (the standalone
// executables and the emulator image), run once per CI run rather than once per Node line,
// and never by `npm test`, whose include does not reach test-dist/ (docs/development.md,
// "Tests of the shipped forms").
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test-dist/**/*.test.ts'],
    // Builds dist/ and both executables once, before any file runs.
    globalSetup: ['test-dist/global-setup.ts'],
    // Each file drives real processes (qemu, Docker) that load the machine's two cores:
    // one file at a time keeps them from starving each other.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
