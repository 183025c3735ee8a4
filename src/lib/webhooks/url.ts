// The one check of a URL webhooks are sent to, for every flag or argument that names one
// (`--forward-to`, `resend --to`, the emulator's `--webhook-url`, `webhooks set-url URL`):
// http or https, checked before anything is sent (the client's httpUrl, with a webhook's example).
import { httpUrl } from '../client/url.js';

export function webhookUrl(value: string, flag: string): URL {
  return httpUrl(value, flag, 'http://127.0.0.1:3000/webhooks');
}
