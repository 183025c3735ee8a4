// The one check of a URL webhooks are sent to, for every flag or argument that names one
// (`--forward-to`, `resend --to`, the emulator's `--webhook-url`, `webhooks set-url URL`):
// http or https, checked before anything is sent.
import { UsageError } from '../errors.js';

export function webhookUrl(value: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag}: "${value}" is not a URL`, 'write it like http://127.0.0.1:3000/webhooks');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${flag}: must be an http:// or https:// URL`);
  return url;
}
