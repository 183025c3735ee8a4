// A secret's `NAME_FILE` variable: the file's content, trimmed, stands for `NAME`, as Docker
// and Kubernetes mount secrets. The file is trusted as ssh trusts a key: owned by the user,
// or by root (those mounts are root's, 0444 or 0644), writable by no one else, in directories
// no one else can write, and a regular file (a FIFO would hold the run forever): whoever
// could write it could choose the webhook secret the CLI verifies with, or the key it sends.
import { UsageError } from '../errors.js';
import { InsecurePathError, readTrustedFile } from '../fs/private.js';
import { SECRET_VARIABLES } from './secret-variables.js';

/**
 * `env` with each secret variable's `NAME_FILE` read into `NAME`. Both set, an unreadable, empty
 * or untrusted file: exit 2 naming the variable (never the content).
 */
export function withSecretFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  let out = env;
  for (const name of SECRET_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (!file) continue;
    if (env[name]) throw new UsageError(`${name} and ${name}_FILE are both set`, 'unset one of them');
    let value: string;
    try {
      value = readTrustedFile(file, `${name}_FILE`).trim();
    } catch (err) {
      if (err instanceof InsecurePathError) throw err;
      throw new UsageError(`${name}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (!value) throw new UsageError(`${name}_FILE: ${file} is empty`);
    out = { ...out, [name]: value };
  }
  return out;
}
