import { describe, expect, it } from 'vitest';
import { attr, junitXml, text } from '../../src/lib/sandbox/junit.js';
import { findAll, parseXml } from '../helpers/xml.js';

const NASTY = `a < b && c > d "quoted" 'single' ]]> tab\there\nnew line \u0000nul \u001bescape \uD800lone`;

describe('JUnit XML', () => {
  it('escapes text and attributes, and replaces characters XML cannot carry', () => {
    expect(text('<a & b>')).toBe('&lt;a &amp; b&gt;');
    expect(text(']]>')).toBe(']]&gt;');
    expect(attr(`"x" 'y'\n`)).toBe('&quot;x&quot; &apos;y&apos;&#10;');
    expect(text('\u0000\u0007ok\u{1F600}')).toBe('\uFFFD\uFFFDok\u{1F600}');
  });

  it('writes a well-formed report with pass, fail, skip and error cases', () => {
    const xml = junitXml({
      name: 'offramp smoke (completed)',
      timestamp: new Date('2026-11-22T10:00:00.000Z'),
      seconds: 1.23456,
      properties: { transaction_id: '0b6f', merchant_reference: NASTY },
      cases: [
        { id: 'status-order', name: 'the statuses went in a valid order', status: 'pass', detail: 'a → b' },
        { id: 'history-reasons', name: 'reasons <scope:word>', status: 'fail', detail: NASTY },
        { id: 'ledger-row', name: "the transaction's row", status: 'skip', detail: 'not completed & "so" skipped' },
        { id: 'walk', name: 'the walk', status: 'error', detail: 'NETWORK: refused\nsecond line' },
      ],
    });
    const root = parseXml(xml);
    expect(root.name).toBe('testsuites');
    expect(root.attrs).toMatchObject({ tests: '4', failures: '1', errors: '1', skipped: '1', time: '1.235' });
    const [suite] = findAll(root, 'testsuite');
    expect(suite!.attrs).toMatchObject({ name: 'offramp smoke (completed)', tests: '4', timestamp: '2026-11-22T10:00:00.000Z' });
    expect(findAll(suite!, 'property').map((p) => p.attrs.name)).toEqual(['transaction_id', 'merchant_reference']);
    const cases = findAll(suite!, 'testcase');
    expect(cases.map((c) => c.attrs.name)).toEqual([
      'status-order: the statuses went in a valid order',
      'history-reasons: reasons <scope:word>',
      "ledger-row: the transaction's row",
      'walk: the walk',
    ]);
    const failure = findAll(cases[1]!, 'failure')[0]!;
    // What survives is the text itself, minus what XML 1.0 cannot hold.
    expect(failure.text).toBe(NASTY.replace(/\u0000|\u001b|\uD800/g, '\uFFFD'));
    expect(failure.attrs.message).toBe(NASTY.split('\n')[0]!.replace(/\u0000|\u001b|\uD800/g, '\uFFFD'));
    expect(findAll(cases[2]!, 'skipped')[0]!.attrs.message).toBe('not completed & "so" skipped');
    expect(findAll(cases[3]!, 'error')[0]!.attrs.message).toBe('NETWORK: refused');
  });

  it('the test reader itself rejects malformed XML', () => {
    expect(() => parseXml('<a><b></a>')).toThrow();
    expect(() => parseXml('<a x="1" x="2"/>')).toThrow();
    expect(() => parseXml('<a>&nbsp;</a>')).toThrow();
    expect(() => parseXml('<a>x & y</a>')).toThrow();
    expect(() => parseXml('<a/><b/>')).toThrow();
    expect(() => parseXml('<a>\u0001</a>')).toThrow();
  });
});
