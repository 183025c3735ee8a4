// `smoke --report github`: an `::error` workflow command per failed invariant, and a
// markdown table in $GITHUB_STEP_SUMMARY when the runner names one. Values are escaped as
// the runner expects, or a detail with a newline would end the annotation early.
import type { CheckResult } from './invariants.js';

export type GithubRun = {
  outcome: string;
  transactionId: string | undefined;
  reference: string | undefined;
  seconds: number;
  checks: CheckResult[];
};

/** One `::error` line per failed check. */
export function errorAnnotations(run: GithubRun): string[] {
  return run.checks
    .filter((c) => c.status === 'fail')
    .map((c) => `::error title=${property(`offramp smoke: ${c.id}`)}::${data(`${c.name}: ${c.detail}`)}`);
}

/** The annotation for a run that could not reach the service at all. */
export function unreachableAnnotation(outcome: string, detail: string): string {
  return `::error title=${property(`offramp smoke (${outcome})`)}::${data(`no check ran: ${detail}`)}`;
}

/** The step summary: a heading with the totals, then one table row per check. */
export function summaryMarkdown(run: GithubRun): string {
  const count = (s: CheckResult['status']) => run.checks.filter((c) => c.status === s).length;
  const failed = count('fail');
  const lines = [
    `### ${failed === 0 ? '✅' : '❌'} offramp smoke (${run.outcome}): ${count('pass')} passed, ${failed} failed, ${count('skip')} skipped`,
    '',
    [
      run.transactionId ? `transaction ${code(run.transactionId)}` : undefined,
      run.reference ? `reference ${code(run.reference)}` : undefined,
      `${run.seconds.toFixed(2)} s`,
    ]
      .filter(Boolean)
      .join(' · '),
    '',
    '| result | check | invariant | detail |',
    '|---|---|---|---|',
    ...run.checks.map((c) => `| ${MARK[c.status]} | \`${c.id}\` | ${cell(c.name)} | ${cell(c.detail)} |`),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/** The step summary of a run that could not reach the service. */
export function unreachableMarkdown(outcome: string, detail: string): string {
  return `### ❌ offramp smoke (${outcome}): no check ran\n\nThe service could not be reached: ${cell(detail)}\n\n`;
}

const MARK: Record<CheckResult['status'], string> = { pass: '✅ pass', fail: '❌ fail', skip: '⏭️ skip' };

/** A message of a workflow command. */
function data(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A property value of a workflow command. */
function property(value: string): string {
  return data(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** A code span: entities are not read inside one, so only what would break the line is replaced. */
function code(value: string): string {
  return `\`${value.replace(/`/g, "'").replace(/\|/g, '\\|').replace(/\r?\n/g, ' ')}\``;
}

/** Text in a markdown table cell: no pipe ends the cell, no newline the row, no HTML is read as such. */
function cell(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}
