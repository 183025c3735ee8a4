// IO opens stdin only when a command reads it: creating process.stdin costs a stream that
// most commands never use. Whether it is a terminal can be given up front.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { IO } from '../../src/lib/io.js';

const out = () => new PassThrough();

describe('IO stdin', () => {
  it('opens a lazily given stdin once, on first read, and takes its terminal flag from the option', () => {
    let opened = 0;
    const stream = Object.assign(new PassThrough(), { isTTY: false });
    const io = new IO({ stdin: () => (opened++, stream), stdinIsTTY: true, stdout: out(), stderr: Object.assign(out(), { isTTY: true }), env: {} });
    expect(opened).toBe(0);
    expect(io.stdinIsTTY).toBe(true);
    expect(io.canPrompt()).toBe(true);
    expect(opened).toBe(0);
    expect(io.stdin).toBe(stream);
    expect(io.stdin).toBe(stream);
    expect(opened).toBe(1);
  });

  it('reads the terminal flag from a stream given as is', () => {
    const io = new IO({ stdin: Object.assign(new PassThrough(), { isTTY: true }), stdout: out(), stderr: out(), env: {} });
    expect(io.stdinIsTTY).toBe(true);
    expect(new IO({ stdin: new PassThrough(), stdout: out(), stderr: out(), env: {} }).stdinIsTTY).toBe(false);
  });
});

describe('IO colour (contract: colour only when stderr is a terminal)', () => {
  const tty = () => Object.assign(new PassThrough(), { isTTY: true });
  const io = (o: { out: boolean; err: boolean; env?: NodeJS.ProcessEnv; noColor?: boolean }) =>
    new IO({ stdin: new PassThrough(), stdout: o.out ? tty() : out(), stderr: o.err ? tty() : out(), env: o.env ?? {}, noColor: o.noColor });

  it.each([
    [true, true, true, true],
    [true, false, false, false], // stdout a terminal, stderr redirected: no colour anywhere
    [false, true, false, true], // piped data stays plain; messages on the terminal are coloured
    [false, false, false, false],
  ])('stdout terminal %s, stderr terminal %s → tables %s, messages %s', (outTTY, errTTY, colorOut, colorErr) => {
    const x = io({ out: outTTY, err: errTTY });
    expect([x.colorOut, x.colorErr]).toEqual([colorOut, colorErr]);
  });

  it('NO_COLOR and --no-color turn it off, FORCE_COLOR on (0/false: off)', () => {
    expect(io({ out: true, err: true, env: { NO_COLOR: '1' } }).colorErr).toBe(false);
    expect(io({ out: true, err: true, noColor: true }).colorOut).toBe(false);
    const forced = io({ out: false, err: false, env: { FORCE_COLOR: '1' } });
    expect([forced.colorOut, forced.colorErr]).toEqual([true, true]);
    expect(io({ out: true, err: true, env: { FORCE_COLOR: '0' } }).colorOut).toBe(false);
    expect(io({ out: false, err: false, env: { FORCE_COLOR: '1', NO_COLOR: '1' } }).colorOut).toBe(false);
  });
});

/** An IO over in-memory streams, and what each stream received. */
function captured() {
  const stdout = out();
  const stderr = out();
  let o = '';
  let e = '';
  stdout.on('data', (d) => (o += d));
  stderr.on('data', (d) => (e += d));
  const io = new IO({ stdin: new PassThrough(), stdout, stderr, env: {} });
  return { io, text: () => ({ out: o, err: e }) };
}

describe('IO redaction (stderr: every form of a secret; stdout: data as sent)', () => {
  it('a secret is masked wherever it stands: beside -, _, letters, quotes, in a URL', () => {
    const { io, text } = captured();
    io.addSecret('sk_live_4f9a2c1d');
    io.err('keys: sk_live_4f9a2c1d-old, sk_live_4f9a2c1d_2, xsk_live_4f9a2c1dx, "sk_live_4f9a2c1d", \'sk_live_4f9a2c1d\'');
    io.err('proxy http://ops:sk_live_4f9a2c1d@127.0.0.1:9/');
    expect(text().err).not.toContain('4f9a2c1d');
    expect(text().err).toBe('keys: ***-old, ***_2, x***x, "***", \'***\'\nproxy http://ops:***@127.0.0.1:9/\n');
  });

  it('a key with characters that JSON or a URL escape is masked in those forms too', () => {
    const { io, text } = captured();
    const key = 'sk/te"st+key\\1 x';
    io.addSecret(key);
    // Percent escapes in lower case, as some encoders write them: sk%2fte%22st…
    io.err(`json ${JSON.stringify(key)} url ${encodeURIComponent(key)} lower ${encodeURIComponent(key).toLowerCase()}`);
    io.err(`form ${new URLSearchParams({ k: key }).toString()}`);
    const url = new URL('http://h/');
    url.password = key;
    io.err(`userinfo ${url.href}`);
    const err = text().err;
    for (const form of [key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key), encodeURIComponent(key).toLowerCase(), new URLSearchParams({ k: key }).toString().slice(2), url.password]) {
      expect(err).not.toContain(form);
    }
    expect(err).toContain('json "***" url *** lower ***\nform k=***\nuserinfo http://:***@h/');
  });

  it('a key shorter than 8 characters is not a secret to the redactor: ordinary words stay whole', () => {
    const { io, text } = captured();
    io.addSecret('test');
    io.err('reference test-order-1 exists; contest results');
    expect(text().err).toBe('reference test-order-1 exists; contest results\n');
  });

  it('a JSON line on stderr still parses, redacted inside its strings', () => {
    const { io, text } = captured();
    io.addSecret('sk_live_4f9a2c1d');
    io.err(JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'invalid API key sk_live_4f9a2c1d-x', timestamp: null } }));
    expect(JSON.parse(text().err)).toEqual({ error: { code: 'UNAUTHORIZED', message: 'invalid API key ***-x', timestamp: null } });
  });

  it('stdout is data, never rewritten; stderr says once that it holds a secret, without it', () => {
    const { io, text } = captured();
    io.addSecret('sk_live_4f9a2c1d');
    io.out('{"merchant_reference":"sk_live_4f9a2c1d"}\n');
    io.print('again sk_live_4f9a2c1d');
    expect(text().out).toBe('{"merchant_reference":"sk_live_4f9a2c1d"}\nagain sk_live_4f9a2c1d\n');
    expect(text().err.match(/warning: the output holds a key or secret/g)).toHaveLength(1);
    expect(text().err).not.toContain('4f9a2c1d');
  });
});

describe('IO terminal safety', () => {
  it('err and print write one line whatever they quote: escapes, CR and LF are shown', () => {
    const { io, text } = captured();
    io.err('error: NOT_FOUND: \x1b]0;PWNED\x07\x1b[2Jgone\r\nerror: FAKE');
    io.print('ref \x1b[31mred\t|');
    expect(text().err).toBe('error: NOT_FOUND: \\x1b]0;PWNED\\x07\\x1b[2Jgone\\r\\nerror: FAKE\n');
    expect(text().out).toBe('ref \\x1b[31mred\\t|\n');
  });

  it('a JSON line keeps parsing to the same value; its C1 and bidi controls are escaped', () => {
    const { io, text } = captured();
    const envelope = { error: { code: 'X', message: 'a\u009b2Jb\u202ec' } };
    io.err(JSON.stringify(envelope));
    expect(text().err).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
    expect(JSON.parse(text().err)).toEqual(envelope);
  });

  it('out writes data byte for byte, control characters included', () => {
    const { io, text } = captured();
    io.out('a\x1bb\r\n');
    expect(text().out).toBe('a\x1bb\r\n');
  });
});
