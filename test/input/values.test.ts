import { describe, expect, it, vi } from 'vitest';
import { PassThrough } from 'node:stream';
import { UsageError } from '../../src/lib/errors.js';
import { IO } from '../../src/lib/io.js';
import {
  ask,
  generateReference,
  idempotencyKeyProblem,
  missingFlags,
  parseIdempotencyKey,
  parseIntFlag,
  parseReference,
  parseSymbol,
  parseUuid,
  referenceProblem,
  shellQuote,
  uuidProblem,
  validator,
} from '../../src/lib/input/values.js';

function io(tty: boolean, env: NodeJS.ProcessEnv = {}, noInput = false): IO {
  const s = () => Object.assign(new PassThrough(), { isTTY: tty });
  return new IO({ stdin: s(), stdout: s(), stderr: s(), env, noInput });
}

describe('validators', () => {
  it('accepts UUIDs of any case and refuses anything else, naming the flag', () => {
    expect(uuidProblem('0B6F3C1E-8D2A-4F51-9C1E-2A7D5E9B1C91')).toBeNull();
    expect(parseUuid(' 0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91 ', '--quote')).toBe('0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91');
    for (const bad of ['', '123', '0b6f3c1e8d2a4f519c1e2a7d5e9b1c91', '0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c9z']) {
      expect(uuidProblem(bad)).not.toBeNull();
    }
    expect(() => parseUuid('nope', '--quote')).toThrow(/^--quote "nope" is not a UUID/);
  });

  it('trims references and bounds them', () => {
    expect(parseReference('  order-1  ')).toBe('order-1');
    expect(referenceProblem('   ')).toBe('must not be empty');
    expect(referenceProblem('x'.repeat(128))).toBeNull();
    expect(referenceProblem('x'.repeat(129))).toMatch(/at most 128/);
    expect(referenceProblem('a\nb')).toMatch(/control characters/);
    expect(() => parseReference('')).toThrow(UsageError);
  });

  it('takes idempotency keys verbatim: visible ASCII, 1 to 255', () => {
    expect(parseIdempotencyKey('retry-key_1')).toBe('retry-key_1');
    expect(idempotencyKeyProblem('')).not.toBeNull();
    expect(idempotencyKeyProblem('has space')).toMatch(/visible ASCII/);
    expect(idempotencyKeyProblem('k'.repeat(256))).toMatch(/at most 255/);
  });

  it('lower-cases tokens and networks, refuses odd ones', () => {
    expect(parseSymbol(' USDT ', '--token')).toBe('usdt');
    expect(() => parseSymbol('us dt', '--token')).toThrow(/--token "us dt" is not a token or network/);
  });

  it('parses whole numbers in a range', () => {
    expect(parseIntFlag('100', '--limit', 1, 100)).toBe(100);
    for (const bad of ['0', '101', '1.5', '-1', 'ten', '']) expect(() => parseIntFlag(bad, '--limit', 1, 100)).toThrow(/--limit must be a whole number, 1 to 100/);
    expect(() => parseIntFlag('5', '--interval', 100)).toThrow(/at least 100/);
  });

  it('validator() adapts a problem function to @inquirer', () => {
    const v = validator(uuidProblem);
    expect(v('0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91')).toBe(true);
    expect(v('x')).toMatch(/not a UUID/);
  });
});

describe('missing values', () => {
  it('names every missing flag in one usage error (exit 2)', () => {
    const err = missingFlags(['--token', '--ref']);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe('missing required flags: --token, --ref');
    expect(missingFlags(['--ref']).message).toBe('missing required flag: --ref');
  });

  it('ask: a given value wins; no terminal, CI or --no-input means exit 2; a terminal means the prompt', async () => {
    const prompt = vi.fn(async () => 'asked');
    const prompts = async () => ({}) as never;
    expect(await ask({ io: io(true), prompts }, '--ref', 'given', prompt)).toBe('given');
    for (const session of [io(false), io(true, { CI: 'true' }), io(true, {}, true)]) {
      await expect(ask({ io: session, prompts }, '--ref', undefined, prompt)).rejects.toThrow('missing required flag: --ref');
    }
    expect(prompt).not.toHaveBeenCalled();
    const tty = io(true);
    expect(await ask({ io: tty, prompts }, '--ref', undefined, prompt)).toBe('asked');
    // Prompts write to stderr, never stdout (stdout is data).
    expect(prompt).toHaveBeenCalledWith({}, { input: tty.stdin, output: tty.stderr });
  });
});

describe('helpers', () => {
  it('generates readable, distinct references', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    const a = generateReference(now);
    expect(a).toMatch(/^cli-20261122-[0-9a-f]{8}$/);
    expect(referenceProblem(a)).toBeNull();
    expect(generateReference(now)).not.toBe(a);
  });

  it('quotes for a POSIX shell only when needed', () => {
    expect(shellQuote('order-1')).toBe('order-1');
    expect(shellQuote('my order')).toBe(`'my order'`);
    expect(shellQuote(`it's`)).toBe(`'it'\\''s'`);
  });
});
