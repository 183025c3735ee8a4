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
