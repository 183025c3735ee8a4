// JUnit XML for CI systems: the format has no formal standard, so this is the common subset
// every reader accepts (the Ant/Surefire shape), one <testcase> per smoke check.
import type { CheckResult } from './invariants.js';

export type JUnitCase = CheckResult | { id: string; name: string; status: 'error'; detail: string };

export type JUnitSuite = {
  name: string;
  /** When the run started. */
  timestamp: Date;
  /** Duration of the whole run, in seconds. */
  seconds: number;
  cases: JUnitCase[];
  /** Shown as <property> elements: transaction id, reference, outcome, base URL. */
  properties?: Record<string, string>;
};

const CLASSNAME = 'offramp.smoke';

export function junitXml(suite: JUnitSuite): string {
  const count = (s: JUnitCase['status']) => suite.cases.filter((c) => c.status === s).length;
  const totals = {
    tests: suite.cases.length,
    failures: count('fail'),
    errors: count('error'),
    skipped: count('skip'),
    time: suite.seconds.toFixed(3),
  };
  const totalsAttrs = `tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}" skipped="${totals.skipped}" time="${totals.time}"`;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${attr(suite.name)}" ${totalsAttrs}>`,
    `  <testsuite name="${attr(suite.name)}" ${totalsAttrs} timestamp="${attr(suite.timestamp.toISOString())}" hostname="localhost">`,
  ];
  const props = Object.entries(suite.properties ?? {});
  if (props.length) {
    lines.push('    <properties>');
    for (const [name, value] of props) lines.push(`      <property name="${attr(name)}" value="${attr(value)}"/>`);
    lines.push('    </properties>');
  }
  for (const c of suite.cases) {
    const inner: Record<JUnitCase['status'], string> = {
      pass: `<system-out>${text(c.detail)}</system-out>`,
      skip: `<skipped message="${attr(c.detail)}"/>`,
      fail: `<failure message="${attr(firstLine(c.detail))}" type="InvariantFailed">${text(c.detail)}</failure>`,
      error: `<error message="${attr(firstLine(c.detail))}" type="SmokeError">${text(c.detail)}</error>`,
    };
    lines.push(`    <testcase classname="${CLASSNAME}" name="${attr(`${c.id}: ${c.name}`)}" time="0.000">`, `      ${inner[c.status]}`, '    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

/**
 * Characters XML 1.0 cannot carry at all (most C0 controls, lone surrogates, U+FFFE/F)
 * become U+FFFD: escaping cannot save them, and one of them makes the whole file unreadable.
 */
function legal(value: string): string {
  return value.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');
}

/** Element text: & and < must go; > too, so that "]]>" can never appear. */
export function text(value: string): string {
  return legal(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Attribute value in double quotes; newlines and tabs as references, or parsers fold them to spaces. */
export function attr(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

function firstLine(value: string): string {
  return value.split('\n')[0] ?? '';
}
