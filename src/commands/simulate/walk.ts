// PLACEHOLDER: replaced by the issue that builds this command.
import { CliError, EXIT } from '../../lib/errors.js';

export async function run(): Promise<void> {
  throw new CliError('this command is not built yet', 'NOT_BUILT', EXIT.failure);
}
