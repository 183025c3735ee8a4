// npm run bench: every benchmark in turn (each bounded and self-stopping).
// One of them alone: node bench/<name>.mjs
const benches = ['startup', 'emulator', 'export', 'listen'];
const only = process.argv.slice(2);
for (const name of only.length ? only : benches) {
  let mod;
  try {
    mod = await import(`./${name}.mjs`);
  } catch (err) {
    if (err.code === 'ERR_MODULE_NOT_FOUND' && err.message.includes(`${name}.mjs`)) continue;
    throw err;
  }
  console.log(`\n== ${name}`);
  await mod.main();
}
