import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

export default defineConfig({
  define: { __OFFRAMP_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Per file even with isolation off (see below): what every test is held to.
    setupFiles: ['test/setup-files/answers-held-to-document.ts', 'test/setup-files/scripted-servers.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Three workers on this project's 2-core machines: much of a file's time is waiting on
    // servers, proxies and child processes, so a third worker fills it. Measured (npm test,
    // quiet): 83 s with 2 workers, 78 s with 3 (BENCHMARKS.md, "Tests"); more oversubscribes
    // the cores the spawned programs (LibreOffice, squid, the CLI) need.
    maxWorkers: 3,
    // One module registry per worker instead of one per file: the suite's files import the
    // same CLI and emulator graph, and evaluating it again for each file was half the run
    // (docs/development.md, "Tests"). Nothing a test relies on lives in a module's state
    // across files: per-file hooks are in setupFiles, servers and homes are per test.
    isolate: false,
  },
});
