// offramp smoke: the CI check (docs/sandbox.md, "offramp smoke").
import { appendFile } from 'node:fs/promises';
import { Command, Option } from '@commander-js/extra-typings';
import type { Context } from '../lib/context.js';
import { writeAside } from '../lib/fs/atomic.js';
import { CheckFailed, CliError, exitCodeForSignal, UsageError } from '../lib/errors.js';
import type { Api } from '../lib/client/api.js';
import { receiveDeliveries, type SmokeReceiver } from '../lib/sandbox/receive.js';
import { chalkFor } from '../lib/output/render.js';
import { paint } from '../lib/output/sanitize.js';
import { writeJson } from '../lib/output/json.js';
import { errorAnnotations, summaryMarkdown, unreachableAnnotation, unreachableMarkdown } from '../lib/sandbox/github.js';
import { evaluate, walkFailed, type CheckResult } from '../lib/sandbox/invariants.js';
import { junitXml, type JUnitCase } from '../lib/sandbox/junit.js';
import { collectFacts } from '../lib/sandbox/smoke.js';
import { Timeline } from '../lib/sandbox/timeline.js';
import { OUTCOMES } from '../lib/sandbox/walk.js';
import { examples, untilStopped, type OptionsOf } from './command.js';
import { refuseProduction } from '../lib/config/production.js';

export const command = () =>
  new Command('smoke')
    .description('CI check: one full walk plus invariants (exit 8 on a failure)')
    .addOption(new Option('--outcome <outcome>', 'outcome to walk to').choices(OUTCOMES).default('completed'))
    .option('--junit <file>', 'write a JUnit XML report')
    .addOption(new Option('--report <format>', 'also report for a CI system: github (::error annotations, $GITHUB_STEP_SUMMARY table)').choices(['github'] as const))
    .option('--receive-at <url>', 'the http:// URL the emulator reaches this job at (a container): smoke listens on its port')
    .option('--no-deliveries', "do not receive the emulator's deliveries (by default smoke does when it has no endpoint)")
    .addHelpText(
      'after',
      examples('offramp smoke', 'offramp smoke --junit smoke.xml --json', 'offramp smoke --junit smoke.xml --report github', 'offramp smoke --receive-at "http://$(hostname -i):8788/"'),
    );

export type Options = OptionsOf<typeof command>;

export async function run(opts: Options, ctx: Context): Promise<number | void> {
  if (opts.receiveAt !== undefined && opts.deliveries === false) throw new UsageError('--receive-at and --no-deliveries: choose one');
  await refuseProduction(ctx, 'smoke');
  const api = await ctx.api();
  const own = opts.deliveries === false ? 'not received by smoke (--no-deliveries)' : await receiveDeliveries(ctx, opts.receiveAt);
  if (typeof own === 'string') {
    ctx.io.err(`Deliveries: ${own}.`);
    return check(opts, ctx, api, undefined);
  }
  ctx.io.err(`Deliveries: received by smoke at ${own.url} for this run and verified with the emulator's secret; the emulator's webhook URL is put back when smoke ends.`);
  // Ctrl-C (or an abort of ctx.signal) ends the run as a failure does: the URL is put back first.
  const ended = new AbortController();
  const stopped = untilStopped(ctx.signal ? AbortSignal.any([ended.signal, ctx.signal]) : ended.signal);
  try {
    const signal = await Promise.race([check(opts, ctx, api, own).then(() => undefined), stopped.then((s) => s ?? 'SIGINT')]);
    if (signal) {
      ctx.io.err(`Stopped (${signal}).`);
      return exitCodeForSignal(signal);
    }
  } finally {
    ended.abort();
    ctx.io.err(await own.stop());
  }
}

/** The walk, the invariants and the reports; `own`: smoke's receiver, when it receives the deliveries. */
async function check(opts: Options, ctx: Context, api: Api, own: SmokeReceiver | undefined): Promise<void> {
  const { outcome } = opts;
  const github = opts.report === 'github';
  const timeline = await Timeline.create(ctx.io);
  const startedAt = ctx.now();
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  // Written aside and renamed: a half-written report is never read as a whole one.
  const writeJunit = async (cases: JUnitCase[], properties?: Record<string, string>) => {
    if (opts.junit) await writeAside(opts.junit, junitXml({ name: `offramp smoke (${outcome})`, timestamp: startedAt, seconds: seconds(), cases, ...(properties ? { properties } : {}) }), 0o644);
  };
  /** The `--json` report, the same shape whether the run passed, failed a check, or could not reach the service. */
  const jsonReport = (ok: boolean, checks: CheckResult[], steps: unknown[], transactionId?: string, reference?: string) => ({
    ok,
    outcome,
    transaction_id: transactionId ?? null,
    merchant_reference: reference ?? null,
    started_at: startedAt.toISOString(),
    duration_ms: Math.round(seconds() * 1000),
    checks,
    steps,
  });

  let facts;
  try {
    facts = await collectFacts(api, {
      outcome,
      now: ctx.now,
      sleep: ctx.sleep,
      timeoutMs: ctx.globals.timeout,
      hooks: { onBegin: (i) => timeline.begin(i), onStep: (i) => timeline.done(i), onNote: (line) => timeline.note(line) },
    });
  } catch (err) {
    // The service could not be reached (network, timeout, key): no check ran. CI still
    // gets a report saying so, then the usual exit code for the error.
    timeline.fail();
    const detail = err instanceof CliError ? `${err.code}: ${err.message}` : String(err);
    await writeJunit([{ ...walkFailed(outcome, detail), status: 'error' }]);
    if (github) await reportToGithub(ctx, [unreachableAnnotation(outcome, detail)], unreachableMarkdown(outcome, detail));
    // A CI job that keeps stdout (`smoke --json > result.json`) gets a report whether the
    // run passed or failed; the exit code says which, the error envelope goes to stderr.
    if (ctx.globals.json) writeJson(ctx.io, jsonReport(false, [walkFailed(outcome, detail)], []));
    throw err;
  }
  // A walk the service refused part-way leaves its step's spinner running.
  if (facts.walkError) timeline.fail();
  if (own) facts.receivedBySmoke = { url: own.url, schemes: own.received, refused: own.refused };

  const checks = evaluate(facts);
  const failed = checks.filter((c) => c.status === 'fail');
  const ok = failed.length === 0;
  const properties: Record<string, string> = { outcome };
  if (facts.transactionId) properties.transaction_id = facts.transactionId;
  const reference = facts.steps.find((s) => s.step === 'create')?.detail?.merchant_reference;
  if (reference) properties.merchant_reference = reference;

  await writeJunit(checks, properties);
  if (ctx.globals.json) writeJson(ctx.io, jsonReport(ok, checks, facts.steps, facts.transactionId, reference));
  else renderReport(ctx, checks, facts.transactionId, outcome);
  if (opts.junit) ctx.io.err(`JUnit report written to ${opts.junit}`);
  if (github) {
    const run = { outcome, transactionId: facts.transactionId, reference, seconds: seconds(), checks };
    await reportToGithub(ctx, errorAnnotations(run), summaryMarkdown(run));
  }
  if (!ok) {
    throw new CheckFailed(`${failed.length} of ${checks.length} smoke checks failed: ${failed.map((c) => c.id).join(', ')}`);
  }
}

function renderReport(ctx: Context, checks: CheckResult[], txId: string | undefined, outcome: string): void {
  const c = chalkFor(ctx.io);
  const label = { pass: paint('PASS', c.green), fail: paint('FAIL', c.red), skip: paint('SKIP', c.dim) } as const;
  const { io } = ctx;
  io.print(`smoke: walk to ${outcome}${txId ? `, transaction ${txId}` : ''}`);
  io.print('');
  // A check's detail quotes what the service answered: print makes it terminal-safe.
  for (const check of checks) {
    io.print([label[check.status], `  ${check.id}: ${check.name}`]);
    io.print(['      ', check.status === 'fail' ? check.detail : paint(check.detail, c.dim)]);
  }
  const count = (s: CheckResult['status']) => checks.filter((x) => x.status === s).length;
  io.print('');
  io.print(`${checks.length} checks: ${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped`);
}

/**
 * Annotations go to stdout, where the runner reads workflow commands; with --json, stdout
 * is the JSON alone, so they go to stderr, which the runner reads too. The summary is
 * appended to the file the runner names; without one (not on GitHub) it is skipped.
 */
async function reportToGithub(ctx: Context, annotations: string[], markdown: string): Promise<void> {
  if (ctx.globals.json) for (const line of annotations) ctx.io.err(line);
  else if (annotations.length > 0) ctx.io.out(annotations.map((line) => `${line}\n`).join(''));
  const summaryFile = ctx.env.GITHUB_STEP_SUMMARY;
  if (!summaryFile) return;
  try {
    await appendFile(summaryFile, markdown, 'utf8');
  } catch (err) {
    ctx.io.err(`warning: could not append the smoke summary to $GITHUB_STEP_SUMMARY (${summaryFile}): ${(err as Error).message}`);
  }
}
