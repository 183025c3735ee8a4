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

describe('IO redaction (secrets as whole values, data never altered)', () => {
  const captured = () => {
    const stdout = out();
    const stderr = out();
    let o = '';
    let e = '';
    stdout.on('data', (d) => (o += d));
    stderr.on('data', (d) => (e += d));
    const io = new IO({ stdin: new PassThrough(), stdout, stderr, env: {} });
    return { io, text: () => ({ out: o, err: e }) };
  };

  it('a short key inside other words is left alone; the key as a value is redacted', () => {
    const { io, text } = captured();
    io.addSecret('test');
    io.out('{"merchant_reference":"test-order-1"}\n');
    io.err('reference test-order-1 exists; key test was rejected');
    expect(text().out).toBe('{"merchant_reference":"test-order-1"}\n');
    expect(text().err).toBe('reference test-order-1 exists; key *** was rejected\n');
  });

  it('a JSON line on stderr still parses whatever the key is', () => {
    const { io, text } = captured();
    io.addSecret('null');
    io.addSecret('sk_live_4f9a2c1d');
    io.err(JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'invalid API key sk_live_4f9a2c1d', timestamp: null } }));
    expect(JSON.parse(text().err)).toEqual({ error: { code: 'UNAUTHORIZED', message: 'invalid API key ***', timestamp: null } });
  });

  it('stdout is data, never rewritten', () => {
    const { io, text } = captured();
    io.addSecret('abcd');
    io.out('abcd\n');
    expect(text().out).toBe('abcd\n');
  });
});
