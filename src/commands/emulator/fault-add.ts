// offramp emulator fault add: a targeted fault rule (docs/emulator.md, "Control plane"),
// checked here with the emulator's own validation, so bad input is refused (exit 2) before
// anything is sent.
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import { durationFlag, parseIntFlag } from '../../lib/input/values.js';
import { writeJson } from '../../lib/output/json.js';
import type { FaultInput, FaultRule } from '../../emulator/index.js';
import { examples, type OptionsOf } from '../command.js';
import { callControl, controlTarget, type ControlFlags } from '../../lib/emulator/control-client.js';

/** `--latency` is also an option of `offramp emulator`, which takes it when it comes first: either way it reaches `run`. */
export const command = () =>
  new Command<[], {}, ControlFlags>('add')
    .description('add a fault rule')
    .option('--route <route>', "'METHOD PATH', PATH below the base path, * for one segment: 'GET /transactions/*'")
    .option('--webhook', 'a fault on webhook deliveries instead of an API route')
    .option('--event-type <type>', 'with --webhook: only deliveries of this event type')
    .option('--next <n>', 'only the next N matching requests or deliveries (default: until cleared)')
    .option('--status <code>', 'answer this status (routes: 400-599, before the operation; webhooks: 300-599)')
    .option('--drop-after-commit', 'run the operation, then close the connection without an answer')
    .option('--latency <duration>', 'delay the answer: 500ms, 5s (a bare number is ms)')
    .addHelpText(
      'after',
      examples(
        "offramp emulator fault add --route 'GET /transactions/*' --next 2 --status 503",
        "offramp emulator fault add --route 'POST /transactions' --next 1 --drop-after-commit",
        'offramp emulator fault add --webhook --event-type transaction.created --next 3 --status 500',
      ),
    );

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const { faultProblem, MAX_FAULT_LATENCY_MS } = await import('../../emulator/index.js');
  const next = opts.next === undefined ? undefined : parseIntFlag(opts.next, '--next', 1, 1_000_000);
  const status = opts.status === undefined ? undefined : parseIntFlag(opts.status, '--status', 100, 599);
  let input: FaultInput;
  if (opts.webhook) {
    if (opts.route !== undefined || opts.dropAfterCommit || opts.latency !== undefined) {
      throw new UsageError('--webhook takes --event-type, --next and --status only (--route, --drop-after-commit and --latency are for API routes)');
    }
    if (status === undefined) throw new UsageError('--webhook needs --status CODE (what the partner endpoint seems to answer, 300 to 599)');
    input = { webhook: true, status, next, eventType: opts.eventType };
  } else {
    if (opts.route === undefined) throw new UsageError("give --route 'METHOD PATH' (e.g. 'GET /transactions/*'), or --webhook for a delivery fault");
    if (opts.eventType !== undefined) throw new UsageError('--event-type goes with --webhook');
    const latencyMs = opts.latency === undefined ? undefined : durationFlag(opts.latency, '--latency', 'ms', 1, MAX_FAULT_LATENCY_MS);
    const effects = [status !== undefined, Boolean(opts.dropAfterCommit), latencyMs !== undefined].filter(Boolean).length;
    if (effects !== 1) throw new UsageError('give exactly one of --status CODE, --drop-after-commit and --latency DURATION');
    input = { route: opts.route, next, status, dropAfterCommit: opts.dropAfterCommit, latencyMs };
  }
  const problem = faultProblem(input);
  if (problem) throw new UsageError(problem);
  const target = await controlTarget(ctx, opts.adminToken);
  const answer = await callControl(ctx, target, { method: 'POST', path: '/faults', json: wireForm(input) });
  const rule = answer.data as FaultRule;
  if (ctx.globals.json) return writeJson(ctx.io, rule);
  ctx.io.print(`fault ${rule.id} added: ${describeRule(rule)}`);
}

/** The control plane's snake_case form of a rule. */
function wireForm(input: FaultInput): Record<string, unknown> {
  if ('webhook' in input) return { webhook: true, status: input.status, next: input.next, event_type: input.eventType };
  return { route: input.route, next: input.next, status: input.status, drop_after_commit: input.dropAfterCommit, latency_ms: input.latencyMs };
}

export function describeRule(rule: FaultRule): string {
  const times = rule.remaining === null ? 'until cleared' : `the next ${rule.remaining}`;
  if (rule.kind === 'webhook') {
    return `${times} ${rule.eventType ?? 'webhook'} deliveries fail with HTTP ${rule.status}`;
  }
  const effect = rule.status !== undefined ? `answer HTTP ${rule.status}` : rule.dropAfterCommit ? 'are dropped after commit' : `wait ${rule.latencyMs} ms`;
  return `${rule.route}: ${times} matching requests ${effect}`;
}
