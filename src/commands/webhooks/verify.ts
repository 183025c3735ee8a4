// offramp webhooks verify --secret S --signature SIG [--file BODY]
// Offline check of one delivery: is SIG the lowercase hex HMAC-SHA256 of the raw body under
// the webhook secret? Exit 0 valid, 8 invalid. The body is read byte for byte (stdin by
// default); the secret is never printed.
import { readFile } from 'node:fs/promises';
import type { Context } from '../../lib/context.js';
import { CheckFailed, UsageError } from '../../lib/errors.js';
import { writeJson } from '../../lib/output/json.js';
import { verify } from '../../lib/signature.js';
import { readStdin } from '../../lib/stdin.js';

export type Options = { secret?: string; signature?: string; file?: string };

export async function run(opts: Options, ctx: Context): Promise<number> {
  const { io } = ctx;
  let signature = opts.signature?.trim();
  if (!signature) {
    if (!io.canPrompt() || opts.file === undefined) {
      throw new UsageError('--signature is required', 'give the X-SVC-Webhook-Signature header value with --signature');
    }
    const { input } = await ctx.prompts();
    signature = (await input({ message: 'X-SVC-Webhook-Signature value:' }, { output: io.stderr })).trim();
  }
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) {
    throw new UsageError('--signature: expected 64 hex characters (an HMAC-SHA256 in hex)');
  }
  const secret = await ctx.webhookSecret(opts.secret);
  if (!secret) {
    throw new UsageError('no webhook secret', 'pass --secret, set OFFRAMP_WEBHOOK_SECRET, or store one in the profile (--webhook-secret-stdin)');
  }
  let body: Buffer;
  if (opts.file !== undefined) {
    try {
      body = await readFile(opts.file);
    } catch (err) {
      throw new UsageError(`--file ${opts.file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  } else {
    if (io.stdinIsTTY) throw new UsageError('no body: pipe the raw body on stdin or give it with --file');
    body = await readStdin(io.stdin);
  }

  const valid = verify(body, secret, signature);
  const event = describeBody(body);
  if (valid) {
    if (ctx.globals.json) writeJson(io, { valid: true, bytes: body.length, ...event });
    else io.out(`valid: the signature matches the ${body.length}-byte body${event.id ? ` (event ${event.id}, ${event.type})` : ''}\n`);
    return 0;
  }
  // A trailing newline added by `echo` or an editor is the usual reason a copy fails.
  const trimmed = stripTrailingNewlines(body);
  const hint =
    trimmed.length !== body.length && verify(trimmed, secret, signature)
      ? 'it matches the body without its trailing newline: the body was changed after delivery (echo adds one; use printf or --file with the exact bytes)'
      : 'check the secret, and that the body is the exact bytes delivered (no reformatting, no added newline)';
  throw new CheckFailed(`invalid: the signature does not match the ${body.length}-byte body`, hint);
}

function describeBody(body: Buffer): { id?: string; type?: string } {
  try {
    const v = JSON.parse(body.toString('utf8')) as { id?: unknown; type?: unknown };
    return { ...(typeof v.id === 'string' ? { id: v.id } : {}), ...(typeof v.type === 'string' ? { type: v.type } : {}) };
  } catch {
    return {};
  }
}

function stripTrailingNewlines(body: Buffer): Buffer {
  let end = body.length;
  while (end > 0 && (body[end - 1] === 0x0a || body[end - 1] === 0x0d)) end--;
  return body.subarray(0, end);
}
