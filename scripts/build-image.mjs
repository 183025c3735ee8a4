// npm run build:image: the emulator image from docker/Dockerfile, tagged
// offramp-emulator:<version> and offramp-emulator:latest, over the linux-x64 standalone
// executable (built first when build/ has none). The base image is the Dockerfile's default
// unless OFFRAMP_IMAGE_BASE names another; where no registry is reachable, make it first
// with scripts/debian-root.sh image.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
export const IMAGE = 'offramp-emulator';

export async function buildImage({ base = process.env.OFFRAMP_IMAGE_BASE } = {}) {
  const binary = join(root, 'build', 'offramp-linux-x64');
  if (!existsSync(binary)) await (await import('./build-binary.mjs')).buildBinaries();
  // The build context holds the executable alone: Docker sends the whole context to the
  // daemon, and nothing else of the repository belongs in the image.
  const context = join(root, 'build', '.work', 'image');
  rmSync(context, { recursive: true, force: true });
  mkdirSync(context, { recursive: true });
  copyFileSync(binary, join(context, 'offramp'));
  chmodSync(join(context, 'offramp'), 0o755);
  const tags = [`${IMAGE}:${pkg.version}`, `${IMAGE}:latest`];
  try {
    execFileSync(
      'docker',
      ['build', '--file', join(root, 'docker', 'Dockerfile'), ...(base ? ['--build-arg', `BASE=${base}`] : []), ...tags.flatMap((t) => ['--tag', t]), context],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  return tags;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const tag of await buildImage()) console.log(tag);
}
