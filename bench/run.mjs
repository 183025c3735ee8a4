// npm run bench: every benchmark in turn, each in its own process (bounded and
// self-stopping), so one bench's heap and event loop never skew the next.
// One of them alone: node bench/<name>.mjs   (or: npm run bench -- export listen)
import { spawnSync } from 'node:child_process';

const benches = ['startup', 'emulator', 'journal', 'export', 'summary', 'listen', 'seed', 'startup-binary'];
const only = process.argv.slice(2);
let failed = 0;
for (const name of only.length ? only : benches) {
  console.log(`\n== ${name}`);
  const r = spawnSync(process.execPath, [new URL(`./${name}.mjs`, import.meta.url).pathname], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed > 0 ? 1 : 0;
