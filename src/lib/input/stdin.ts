// Reading secrets and bodies from stdin, for the non-interactive paths.
import type { Readable } from 'node:stream';

export async function readStdin(stdin: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** Non-empty trimmed lines of stdin. */
export async function readStdinLines(stdin: Readable): Promise<string[]> {
  const text = (await readStdin(stdin)).toString('utf8');
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}
