import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocate, decimal, isAmount, percentOf, price, rateFraction, rateMicros, toCents } from './money.ts';

describe('cart money', () => {
  it('parses decimal strings to cents exactly and prints them back', () => {
    expect(toCents('12')).toBe(1200);
    expect(toCents('12.5')).toBe(1250);
    expect(toCents('0.10')).toBe(10);
    expect(toCents('0.105')).toBe(11); // half away from zero
    expect(toCents('0.104')).toBe(10);
    expect(toCents('-3.20')).toBe(-320);
    expect(toCents(19.6)).toBe(1960);
    expect(toCents('1e3')).toBeUndefined();
    expect(toCents('abc')).toBeUndefined();
    expect(toCents(Number.NaN)).toBeUndefined();
    expect(decimal(0)).toBe('0.00');
    expect(decimal(-5)).toBe('-0.05');
    expect(decimal(123456789)).toBe('1234567.89');
    fc.assert(fc.property(fc.integer({ min: -1e12, max: 1e12 }), (c) => toCents(decimal(c)) === c));
  });

  it('accepts only plain amounts with at most two places', () => {
    expect(['1', '1.5', '1.50', '0.01'].every(isAmount)).toBe(true);
    expect(['-1', '1.999', '1e2', '', ' 1', '1.'].some(isAmount)).toBe(false);
  });

  it('formats in the currency from the decimal string', () => {
    expect(price(123456)).toEqual({
      amount: '1234.56',
      convertedAmount: '1234.56',
      formattedAmount: '$1,234.56',
      formattedConvertedAmount: '$1,234.56',
    });
    expect(price(30, 'EUR').formattedAmount).toBe('€0.30');
  });

  it('applies rates with BigInt and rounds half away from zero', () => {
    expect(rateMicros('8.875')).toBe(8_875_000);
    expect(rateMicros(12.5)).toBe(12_500_000);
    expect(rateMicros('100')).toBe(100_000_000);
    expect(rateMicros('1.0000001')).toBeUndefined();
    expect(rateFraction(8_875_000)).toBe('0.08875');
    expect(rateFraction(100_000_000)).toBe('1');
    expect(rateFraction(0)).toBe('0');
    expect(percentOf(10800, 8_875_000)).toBe(959); // 958.5 → 959 (floats say 958.4999…)
    expect(percentOf(5, 10_000_000)).toBe(1); // 0.5 → 1
    expect(percentOf(-5, 10_000_000)).toBe(-1);
    expect(percentOf(Number.MAX_SAFE_INTEGER, 100_000_000)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('allocates cents in proportion, always adding up to the whole', () => {
    expect(allocate(500, [3600, 5000])).toEqual([209, 291]);
    expect(allocate(10, [1800, 5000, 2700])).toEqual([2, 5, 3]);
    expect(allocate(0, [1, 2])).toEqual([0, 0]);
    expect(allocate(7, [0, 0])).toEqual([0, 0]);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1e7 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 0, max: 1e7 }),
        (weights, total) => {
          const parts = allocate(total, weights);
          const sum = weights.reduce((a, b) => a + b, 0);
          if (sum === 0) return parts.every((p) => p === 0);
          return (
            parts.reduce((a, b) => a + b, 0) === total &&
            parts.every((p, i) => Math.abs(p - (weights[i]! * total) / sum) < 1)
          );
        },
      ),
    );
  });
});
