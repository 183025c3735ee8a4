// Bad input and missing flags for every transaction command: exit 2, one error line (and
// a hint), and no request at all. Run in process (`main`) against a scripted server that
// has no answers, so any request would be recorded as unexpected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { scriptedServer } from '../helpers/server.js';
import { KEY, QUOTE_ID, TX_ID } from './fixtures.js';

let server: Awaited<ReturnType<typeof scriptedServer>>;
beforeAll(async () => {
  server = await scriptedServer([]);
});
afterAll(async () => {
  await server.close();
});

const DIRECT = ['--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20'];

const cases: [string, string[], RegExp][] = [
  ['quote: both amounts', ['quote', '--token', 'usdt', '--network', 'bep20', '--crypto-amount', '1', '--fiat-amount', '2'], /not both/],
  ['quote: neither amount', ['quote', '--token', 'usdt', '--network', 'bep20'], /give one of --crypto-amount .* or --fiat-amount/],
  ['quote: exponent', ['quote', '--token', 'usdt', '--network', 'bep20', '--fiat-amount', '1e3'], /--fiat-amount: "1e3" is not a plain positive decimal \(write it like 150000\.50\)/],
  ['quote: negative', ['quote', '--token', 'usdt', '--network', 'bep20', '--crypto-amount=-5'], /"-5" is not a plain positive decimal \(write it like 100\.5\)/],
  ['quote: grouping comma', ['quote', '--token', 'usdt', '--network', 'bep20', '--fiat-amount', '1,000'], /"1,000" is not a plain positive decimal/],
  ['quote: words', ['quote', '--token', 'usdt', '--network', 'bep20', '--fiat-amount', 'abc'], /"abc" is not a plain positive decimal/],
  ['quote: zero', ['quote', '--token', 'usdt', '--network', 'bep20', '--fiat-amount', '0'], /greater than zero/],
  ['quote: 3 NGN decimals', ['quote', '--token', 'usdt', '--network', 'bep20', '--fiat-amount', '1.005'], /3 decimal places; NGN amounts take at most 2/],
  ['quote: 19 token decimals', ['quote', '--token', 'usdt', '--network', 'bep20', '--crypto-amount', `1.${'1'.repeat(19)}`], /19 decimal places; token amounts take at most 18/],
  ['quote: missing pair', ['quote', '--fiat-amount', '5000'], /missing required flags: --token, --network/],
  ['create: nothing', ['tx', 'create'], /missing required flags: --fiat-amount, --token, --network, --ref/],
  ['create: direct without ref', ['tx', 'create', ...DIRECT], /missing required flag: --ref/],
  ['create: quote without network', ['tx', 'create', '--quote', QUOTE_ID, '--ref', 'r'], /missing required flag: --network/],
  ['create: both modes', ['tx', 'create', '--quote', QUOTE_ID, ...DIRECT, '--ref', 'r'], /choose one pricing mode/],
  ['create: bad quote id', ['tx', 'create', '--quote', 'q-1', '--network', 'bep20', '--ref', 'r'], /--quote "q-1" is not a UUID/],
  ['create: bad amount', ['tx', 'create', '--fiat-amount', '10.999', '--token', 'usdt', '--network', 'bep20', '--ref', 'r'], /3 decimal places/],
  ['create: blank ref', ['tx', 'create', ...DIRECT, '--ref', '   '], /--ref must not be empty/],
  ['create: ref ..', ['tx', 'create', ...DIRECT, '--ref', '..'], /--ref must not be "\.\.": read back by reference it is a path segment every URL folds away/],
  ['get: ref .', ['tx', 'get', '--ref', '.'], /--ref must not be "\.": read back by reference/],
  ['create: long ref', ['tx', 'create', ...DIRECT, '--ref', 'r'.repeat(129)], /--ref is 129 characters; at most 128/],
  ['create: bad key', ['tx', 'create', ...DIRECT, '--ref', 'r', '--idempotency-key', 'a b'], /--idempotency-key must be visible ASCII/],
  ['create: bad phone', ['tx', 'create', ...DIRECT, '--ref', 'r', '--seller-phone', 'call me'], /--seller-phone "call me" is not a phone number/],
  ['create: bad token', ['tx', 'create', '--fiat-amount', '5', '--token', 'us dt', '--network', 'bep20', '--ref', 'r'], /--token "us dt"/],
  ['get: bad id', ['tx', 'get', '42'], /ID "42" is too short: give the whole id or at least its first 8 characters/],
  ['get: not hex', ['tx', 'get', 'order-1042'], /ID "order-1042" is not a UUID \(like .*\) or its first 8 or more characters/],
  ['get: id and ref', ['tx', 'get', TX_ID, '--ref', 'r'], /either a transaction ID or --ref, not both/],
  ['get: nothing', ['tx', 'get'], /missing required flag: ID \(or --ref MERCHANT_REFERENCE\)/],
  ['list: limit 0', ['tx', 'list', '--limit', '0'], /--limit must be a whole number, 1 to 100/],
  ['list: limit 101', ['tx', 'list', '--limit', '101'], /1 to 100/],
  ['list: empty cursor', ['tx', 'list', '--cursor', ' '], /--cursor must not be empty/],
  ['list: xlsx', ['tx', 'list', '-o', 'xlsx'], /-o xlsx is not supported by this command/],
  ['list: raw cells without csv', ['tx', 'list', '--raw-cells'], /--raw-cells applies to -o csv only \(-o table never alters a cell\)/],
  ['cancel: bad id', ['tx', 'cancel', 'x'], /ID "x" is not a UUID/],
  ['cancel: no id', ['tx', 'cancel'], /missing required flag: ID/],
  ['history: bad id', ['tx', 'history', 'x'], /ID "x" is not a UUID/],
  ['watch: interval too small', ['tx', 'watch', TX_ID, '--interval', '5'], /--interval must be from 100ms/],
  ['watch: unknown status', ['tx', 'watch', TX_ID, '--until', 'done'], /argument 'done' is invalid/],
  ['watch: nothing to watch', ['tx', 'watch'], /missing required flag: ID/],
];

describe('bad input: exit 2, one error line, nothing sent', () => {
  it.each(cases)('%s', async (_name, args, message) => {
    const before = server.requests.length;
    const r = await runMain(args, { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^error: USAGE: /);
    expect(lines[0]).toMatch(message);
    expect(lines.slice(1).every((l) => l.startsWith('hint: ') || l.startsWith('(Did you mean'))).toBe(true);
    expect(server.requests.length).toBe(before);
  });

  it('without an API key, create exits 3 before any request or question', async () => {
    const r = await runMain(['tx', 'create', ...DIRECT, '--ref', 'r'], { env: { ...tempHome().env, OFFRAMP_BASE_URL: server.baseUrl } });
    expect(r.code).toBe(3);
    expect(server.requests).toHaveLength(0);
  });
});
