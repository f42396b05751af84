import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allocate,
  decimal,
  isAmount,
  min,
  percentOf,
  price,
  rateFraction,
  rateMicros,
  sum,
  toCents,
} from './money.ts';

/** Past `Number.MAX_SAFE_INTEGER` cents: 300 lines × 9999 × 999 999 999.99 and then some. */
const HUGE = 10n ** 20n;

describe('cart money', () => {
  it('parses decimal strings to cents exactly and prints them back', () => {
    expect(toCents('12')).toBe(1200n);
    expect(toCents('12.5')).toBe(1250n);
    expect(toCents('0.10')).toBe(10n);
    expect(toCents('0.105')).toBe(11n); // half away from zero
    expect(toCents('0.104')).toBe(10n);
    expect(toCents('-3.20')).toBe(-320n);
    expect(toCents('-0.00')).toBe(0n);
    expect(toCents(19.6)).toBe(1960n);
    expect(toCents('1e3')).toBeUndefined();
    expect(toCents('abc')).toBeUndefined();
    expect(toCents(Number.NaN)).toBeUndefined();
    expect(decimal(0n)).toBe('0.00');
    expect(decimal(-5n)).toBe('-0.05');
    expect(decimal(123456789n)).toBe('1234567.89');
    fc.assert(
      fc.property(
        fc.bigInt({ min: -1_000_000_000_000n, max: 1_000_000_000_000n }),
        (c) => toCents(decimal(c)) === c,
      ),
    );
  });

  it('keeps every cent past 2^53: parsing, printing and formatting', () => {
    // 20 lines × 9999 × 999 999 999.99: as a number, 199979999998000.12.
    const subtotal = 20n * 9999n * 99_999_999_999n;
    expect(decimal(subtotal)).toBe('199979999998000.20');
    expect(toCents('199979999998000.20')).toBe(subtotal);
    expect(toCents('199979999998000.205')).toBe(subtotal + 1n);
    expect(price(subtotal)).toEqual({
      amount: '199979999998000.20',
      convertedAmount: '199979999998000.20',
      formattedAmount: '$199,979,999,998,000.20',
      formattedConvertedAmount: '$199,979,999,998,000.20',
    });
    expect(price(-HUGE - 1n).formattedAmount).toBe('-$1,000,000,000,000,000,000.01');
    fc.assert(
      fc.property(fc.bigInt({ min: -HUGE, max: HUGE }), (c) => {
        const { amount, formattedAmount } = price(c);
        return toCents(amount) === c && formattedAmount.replace(/[$,]/g, '') === amount;
      }),
    );
  });

  it('accepts only plain amounts with at most two places', () => {
    expect(['1', '1.5', '1.50', '0.01'].every(isAmount)).toBe(true);
    expect(['-1', '1.999', '1e2', '', ' 1', '1.'].some(isAmount)).toBe(false);
  });

  it('formats in the currency from the decimal string', () => {
    expect(price(123456n)).toEqual({
      amount: '1234.56',
      convertedAmount: '1234.56',
      formattedAmount: '$1,234.56',
      formattedConvertedAmount: '$1,234.56',
    });
    expect(price(30n, 'EUR').formattedAmount).toBe('€0.30');
  });

  it('sums and compares amounts of any size', () => {
    expect(sum([])).toBe(0n);
    expect(sum([BigInt(Number.MAX_SAFE_INTEGER), 2n])).toBe(9_007_199_254_740_993n);
    expect(min(HUGE, HUGE + 1n)).toBe(HUGE);
    expect(min(-1n, 0n)).toBe(-1n);
  });

  it('applies rates with BigInt and rounds half away from zero', () => {
    expect(rateMicros('8.875')).toBe(8_875_000);
    expect(rateMicros(12.5)).toBe(12_500_000);
    expect(rateMicros('100')).toBe(100_000_000);
    expect(rateMicros('1.0000001')).toBeUndefined();
    expect(rateFraction(8_875_000)).toBe('0.08875');
    expect(rateFraction(100_000_000)).toBe('1');
    expect(rateFraction(0)).toBe('0');
    expect(percentOf(10800n, 8_875_000)).toBe(959n); // 958.5 → 959 (floats say 958.4999…)
    expect(percentOf(5n, 10_000_000)).toBe(1n); // 0.5 → 1
    expect(percentOf(-5n, 10_000_000)).toBe(-1n);
    expect(percentOf(HUGE, 100_000_000)).toBe(HUGE);
    // 10 % and 8.875 % of a subtotal past 2^53 cents, to the cent.
    expect(percentOf(19_997_999_999_800_020n, 10_000_000)).toBe(1_999_799_999_980_002n);
    expect(percentOf(HUGE + 4n, 8_875_000)).toBe(8_875_000_000_000_000_000n); // …0.355 → …0
    expect(percentOf(HUGE + 6n, 8_875_000)).toBe(8_875_000_000_000_000_001n); // …0.5325 → …1
  });

  it('allocates cents in proportion, always adding up to the whole', () => {
    expect(allocate(500n, [3600n, 5000n])).toEqual([209n, 291n]);
    expect(allocate(10n, [1800n, 5000n, 2700n])).toEqual([2n, 5n, 3n]);
    expect(allocate(0n, [1n, 2n])).toEqual([0n, 0n]);
    expect(allocate(7n, [0n, 0n])).toEqual([0n, 0n]);
    // Equal weights past 2^53: the spare cents go to the first ones.
    expect(allocate(HUGE + 2n, [HUGE, HUGE, HUGE])).toEqual([
      33_333_333_333_333_333_334n,
      33_333_333_333_333_333_334n,
      33_333_333_333_333_333_334n,
    ]);
    expect(allocate(HUGE + 1n, [HUGE, HUGE, HUGE])).toEqual([
      33_333_333_333_333_333_334n,
      33_333_333_333_333_333_334n,
      33_333_333_333_333_333_333n,
    ]);
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: HUGE }), { minLength: 1, maxLength: 20 }),
        fc.bigInt({ min: 0n, max: HUGE }),
        (weights, total) => {
          const parts = allocate(total, weights);
          const whole = sum(weights);
          if (whole === 0n) return parts.every((p) => p === 0n);
          // Each part is within a cent of its exact share: |part × whole − weight × total| < whole.
          return (
            sum(parts) === total &&
            parts.every((p, i) => {
              const d = p * whole - weights[i]! * total;
              return (d < 0n ? -d : d) < whole;
            })
          );
        },
      ),
    );
  });
});
