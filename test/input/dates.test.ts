import { describe, expect, it } from 'vitest';
import { DAY_MS, MAX_WINDOW_MS, parseDateArg, parseWindow, sliceWindow } from '../../src/lib/input/dates.js';

describe('date arguments', () => {
  it('reads a plain day as UTC, --to inclusive to the last millisecond', () => {
    expect(parseDateArg('2026-10-01', 'start', '--from').toISOString()).toBe('2026-10-01T00:00:00.000Z');
    expect(parseDateArg('2026-10-31', 'end', '--to').toISOString()).toBe('2026-10-31T23:59:59.999Z');
  });

  it('reads RFC 3339 with zone or offset', () => {
    expect(parseDateArg('2026-10-01T12:00:00+01:00', 'start', '--from').toISOString()).toBe('2026-10-01T11:00:00.000Z');
    expect(parseDateArg('2026-10-01T12:00:00.250Z', 'end', '--to').toISOString()).toBe('2026-10-01T12:00:00.250Z');
  });

  it('reads every RFC 3339 form: lower-case t and z, a space for the T, a leap second as the last millisecond of its minute', () => {
    expect(parseDateArg('2026-10-01t12:00:00z', 'start', '--from').toISOString()).toBe('2026-10-01T12:00:00.000Z');
    expect(parseDateArg('2026-10-01 12:00:00+01:00', 'start', '--from').toISOString()).toBe('2026-10-01T11:00:00.000Z');
    expect(parseDateArg('2016-12-31T23:59:60Z', 'end', '--to').toISOString()).toBe('2016-12-31T23:59:59.999Z');
    expect(parseDateArg('2017-01-01T05:29:60+05:30', 'end', '--to').toISOString()).toBe('2016-12-31T23:59:59.999Z');
  });

  it.each(['2026-02-30T00:00:00Z', '2026-01-01T24:00:00Z', '2016-12-31T12:59:60Z'])('rejects %j, which names no instant', (input) => {
    expect(() => parseDateArg(input, 'start', '--from')).toThrow(/--from: ".*" is not a date/);
  });

  it.each(['2026-02-30', '2026-13-01', 'yesterday', '2026-10-01T12:00:00', '1700000000'])('rejects %j naming the flag', (input) => {
    expect(() => parseDateArg(input, 'start', '--from')).toThrow(/--from/);
  });

  it('refuses a window that ends before it starts', () => {
    expect(() => parseWindow('2026-10-02', '2026-10-01')).toThrow(/before --from/);
  });
});

describe('slicing a window into 90-day pieces', () => {
  const window = (days: number) => ({ from: new Date('2026-01-01T00:00:00Z'), to: new Date(Date.parse('2026-01-01T00:00:00Z') + days * DAY_MS - 1) });

  it('keeps a window of 90 days or less whole', () => {
    expect(sliceWindow(window(90))).toHaveLength(1);
    expect(sliceWindow(window(10))).toHaveLength(1);
  });

  it.each([91, 180, 200, 365])('covers %i days with contiguous, non-overlapping, legal slices', (days) => {
    const w = window(days);
    const slices = sliceWindow(w);
    expect(slices[0]!.from).toEqual(w.from);
    expect(slices.at(-1)!.to).toEqual(w.to);
    slices.forEach((s, i) => {
      expect(s.to.getTime() - s.from.getTime()).toBeLessThanOrEqual(MAX_WINDOW_MS);
      if (i > 0) expect(s.from.getTime()).toBe(slices[i - 1]!.to.getTime() + 1);
    });
    expect(slices).toHaveLength(Math.ceil((days * DAY_MS) / (MAX_WINDOW_MS + 1)));
  });
});
