// Smoke receives its own deliveries (docs/sandbox.md, "Deliveries"): against an emulator with
// no endpoint, a receiver of its own for the run, verifying with the emulator's secret,
// registered through the control plane as `webhooks listen` registers, and the URL found put
// back when the run ends, whatever ends it.
import { isIP } from 'node:net';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { displayUrl } from '../client/url.js';
import { startReceiver } from '../webhooks/receiver.js';
import { findSource, register, restorable } from '../webhooks/register.js';
import { webhookUrl } from '../webhooks/url.js';

export type SmokeReceiver = {
  /** Where the emulator delivers for the run. */
  url: string;
  /** Verified events by id: the scheme each signature verified under. */
  received: Map<string, string>;
  /** Refused events by id (as the body claims it): why the receiver refused it. */
  refused: Map<string, string>;
  /** Puts the emulator's URL back and closes the receiver; says what it put back. */
  stop(): Promise<string>;
};

/**
 * Where smoke listens for `--receive-at URL` (the URL the emulator reaches it at): the URL's
 * port (80 without one), on its host when that is an IP address of this machine, else on
 * every interface (a name such as a container's alias resolves elsewhere).
 */
export function bindFor(receiveAt: string): { host: string; port: number; url: string } {
  const url = webhookUrl(receiveAt, '--receive-at');
  if (url.protocol !== 'http:') throw new UsageError('--receive-at: smoke receives plain http:// only', 'give the http:// URL the emulator reaches this job at, like http://10.0.0.5:8788/');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { host: isIP(host) ? host : '0.0.0.0', port: Number(url.port || 80), url: url.toString() };
}

/**
 * A receiver of smoke's own, registered with the emulator; or, when smoke cannot or need
 * not receive, the one line saying why (the `deliveries` check then reads the service's
 * telemetry alone, as without it).
 */
export async function receiveDeliveries(ctx: Context, receiveAt: string | undefined): Promise<SmokeReceiver | string> {
  const at = receiveAt !== undefined ? bindFor(receiveAt) : undefined;
  const source = await findSource(ctx, true, at !== undefined);
  if (source.kind === 'service') return `a ${source.env} service cannot deliver to this machine; the deliveries check reads what it reports`;
  if (source.kind === 'none') return `not received by smoke (${source.why ?? 'no emulator'}); the deliveries check reads what the service reports`;
  const { found } = source;
  const restore = await restorable(found);
  if (found.url !== null && !restore.stale) return `the emulator delivers to ${displayUrl(found.url, { query: false })}; the deliveries check reads what it reports`;
  const received = new Map<string, string>();
  const refused = new Map<string, string>();
  const receiver = await startReceiver({
    host: at?.host ?? '127.0.0.1',
    port: at?.port ?? 0,
    secret: found.secret,
    now: ctx.now,
    onEvent: (info) => {
      if (info.verified && info.id && info.scheme) received.set(info.id, info.scheme);
      else if (info.id && info.error) refused.set(info.id, info.error);
    },
  }).catch((err: NodeJS.ErrnoException) => {
    if (at && (err.code === 'EADDRINUSE' || err.code === 'EADDRNOTAVAIL' || err.code === 'EACCES')) {
      throw new UsageError(`--receive-at ${at.url}: cannot listen on ${at.host}:${at.port} (${err.code})`, 'give a free port, and an address of this machine (or a name, to listen on every interface)');
    }
    throw err;
  });
  const url = at?.url ?? receiver.url;
  try {
    const { undo } = await register(ctx, source, url, undefined, 'smoke', restore);
    const stop = async () => {
      // The URL first, so that nothing more is sent to a closed port.
      const said = await undo();
      await receiver.close();
      return said;
    };
    return { url, received, refused, stop };
  } catch (err) {
    await receiver.close();
    throw err;
  }
}
