/**
 * Property tests of the catalog model: variant generation, price computation (discounts, ranges,
 * unit prices, cost and profit) and bulk percentage adjustments with exact rounding.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blankProduct } from './input.ts';
import {
  choiceCombinations,
  costAndProfit,
  DEFAULT_VARIANT_ID,
  type Discount,
  discounted,
  generateVariants,
  type ProductOption,
  type ProductState,
  priceData,
  pricePerUnit,
  productStock,
  ranges,
} from './model.ts';
import { adjustByPercent, formatMoney, percentOff, scaled, toDecimalString, unscaled } from './money.ts';

const choiceNames = fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9 ]{1,8}$/), {
  minLength: 1,
  maxLength: 4,
  selector: (s) => s.toLowerCase(),
});
const optionsArb: fc.Arbitrary<ProductOption[]> = fc
  .uniqueArray(fc.record({ name: fc.stringMatching(/^[A-Za-z]{1,6}$/), choices: choiceNames }), {
    maxLength: 3,
    selector: (o) => o.name.toLowerCase(),
  })
  .map((os) =>
    os.map((o) => ({
      optionType: 'drop_down' as const,
      name: o.name,
      choices: o.choices.map((c) => ({ value: c, description: c, mediaIds: [] })),
    })),
  );
const cents = fc.integer({ min: 0, max: 10_000_000 });
const pct = fc.integer({ min: 0, max: 100 * 10_000 }); // percent × 10^4
const discountArb: fc.Arbitrary<Discount> = fc.oneof(
  fc.constant({ type: 'NONE' as const, value: 0 }),
  cents.map((value) => ({ type: 'AMOUNT' as const, value })),
  pct.map((value) => ({ type: 'PERCENT' as const, value })),
);

describe('variant generation', () => {
  it('makes one variant per combination of choices, with unique stable ids', () => {
    fc.assert(
      fc.property(optionsArb, (options) => {
        const vs = generateVariants('p1', options, []);
        const expected = options.reduce((n, o) => n * o.choices.length, 1);
        expect(vs).toHaveLength(expected);
        expect(new Set(vs.map((v) => v.id)).size).toBe(expected);
        expect(new Set(vs.map((v) => JSON.stringify(v.choices))).size).toBe(expected);
        for (const v of vs) expect(Object.keys(v.choices)).toEqual(options.map((o) => o.name));
        if (options.length === 0) expect(vs[0]!.id).toBe(DEFAULT_VARIANT_ID);
        expect(generateVariants('p1', options, []).map((v) => v.id)).toEqual(vs.map((v) => v.id));
        expect(choiceCombinations(options)).toEqual(vs.map((v) => v.choices));
      }),
    );
  });

  it('keeps ids, overrides and stock of variants whose choices survive a change of options', () => {
    fc.assert(
      fc.property(optionsArb, cents, fc.stringMatching(/^[a-z]{1,5}$/), (options, price, extra) => {
        fc.pre(options.length > 0);
        const before = generateVariants('p', options, []).map((v, i) => ({
          ...v,
          price: price + i,
          quantity: i,
        }));
        const grown = options.map((o, i) =>
          i === 0 && !o.choices.some((c) => c.description.toLowerCase() === `${extra}!`)
            ? {
                ...o,
                choices: [...o.choices, { value: `${extra}!`, description: `${extra}!`, mediaIds: [] }],
              }
            : o,
        );
        const after = generateVariants('p', grown, before);
        for (const old of before) expect(after).toContainEqual(old);
        expect(after.length).toBeGreaterThan(before.length);
      }),
    );
  });
});

describe('prices', () => {
  it('discounts stay between zero and the price and follow their type exactly', () => {
    fc.assert(
      fc.property(cents, discountArb, (price, d) => {
        const out = discounted(price, d);
        expect(out).toBeGreaterThanOrEqual(0);
        expect(out).toBeLessThanOrEqual(price);
        if (d.type === 'NONE') expect(out).toBe(price);
        if (d.type === 'AMOUNT') expect(out).toBe(Math.max(0, price - d.value));
        if (d.type === 'PERCENT') {
          // |out − exact| ≤ ½ cent, computed without floating point.
          const exact2 = BigInt(price) * BigInt(1_000_000 - d.value) * 2n;
          const diff = BigInt(out) * 2_000_000n - exact2;
          expect(diff <= 1_000_000n && diff > -1_000_000n).toBe(true);
        }
      }),
    );
    expect(percentOff(1999, 15 * 10_000)).toBe(1699); // 16.9915 → 16.99
    expect(percentOff(5, 50 * 10_000)).toBe(3); // 2.5 → 3 (half away from zero)
    expect(percentOff(2800, 30 * 10_000)).toBe(1960);
  });

  it('price data is consistent: numbers, formatted strings, and unit prices', () => {
    fc.assert(
      fc.property(cents, discountArb, (price, discount) => {
        const pd = priceData({ discount }, price);
        expect(pd.price).toBe(price / 100);
        expect(pd.discountedPrice).toBe(discounted(price, discount) / 100);
        expect(pd.formatted.price).toBe(formatMoney(price));
        expect(pd.formatted.price.replace(/[$,]/g, '')).toBe(toDecimalString(price));
        expect(scaled(pd.price, 2)).toBe(price);
      }),
    );
    expect(
      pricePerUnit(2200, {
        totalQuantity: 200,
        totalMeasurementUnit: 'G',
        baseQuantity: 100,
        baseMeasurementUnit: 'G',
      }),
    ).toBe(1100);
    expect(
      pricePerUnit(1000, {
        totalQuantity: 0.5,
        totalMeasurementUnit: 'KG',
        baseQuantity: 100,
        baseMeasurementUnit: 'G',
      }),
    ).toBe(200);
    expect(
      pricePerUnit(1000, {
        totalQuantity: 1,
        totalMeasurementUnit: 'KG',
        baseQuantity: 1,
        baseMeasurementUnit: 'L',
      }),
    ).toBeUndefined();
  });

  it('ranges span the variants and cost and profit add up', () => {
    // A large negative margin, whose float error once passed an absolute 1e-12 (seed 558967778).
    const p = {
      ...blankProduct('p', 'P', '2026-01-01T00:00:00.000Z'),
      discount: { type: 'PERCENT', value: 999993 },
    };
    const margin = costAndProfit(p as ProductState, 9071429, 4769810).profitMargin;
    const sell = discounted(9071429, p.discount as ProductState['discount']);
    expect(Math.abs(margin - (sell - 4769810) / sell)).toBeLessThanOrEqual(
      0.00005 + 8 * Number.EPSILON * Math.abs(margin),
    );
    fc.assert(
      fc.property(
        optionsArb,
        cents,
        fc.array(fc.option(cents, { nil: undefined })),
        cents,
        discountArb,
        (options, base, overrides, cost, discount) => {
          const p: ProductState = {
            ...blankProduct('p', 'P', '2026-01-01T00:00:00.000Z'),
            price: base,
            cost,
            discount,
            productOptions: options,
          };
          p.variants = generateVariants('p', options, []).map((v, i) =>
            overrides[i] === undefined ? v : { ...v, price: overrides[i] },
          );
          const prices = p.variants.map((v) => v.price ?? base);
          const r = ranges(p);
          expect(r.priceRange).toEqual({
            minValue: Math.min(...prices) / 100,
            maxValue: Math.max(...prices) / 100,
          });
          expect(r.costRange).toEqual({ minValue: cost / 100, maxValue: cost / 100 });
          const cp = costAndProfit(p, base, cost);
          expect(Math.round(cp.profit * 100)).toBe(discounted(base, discount) - cost);
          const sell = discounted(base, discount);
          // The margin is a fraction of the discounted price to 4 places, at most 1 (the typings).
          if (sell === 0) expect(cp.profitMargin).toBe(0);
          else {
            // Half a unit of the 4th place, plus the float error of both sides, relative to their
            // size: a margin of -74527.2813 (a 99.9993 % discount under a large cost) is off by 1.5e-11.
            const exact = (sell - cost) / sell;
            expect(Math.abs(cp.profitMargin - exact)).toBeLessThanOrEqual(
              0.00005 + 8 * Number.EPSILON * Math.max(1, Math.abs(exact)),
            );
          }
          expect(cp.profitMargin).toBeLessThanOrEqual(1);
          expect(scaled(cp.profitMargin, 4)).not.toBeUndefined();
        },
      ),
    );
  });

  it('inventory status summarises variant stock', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 12 }), (quantities) => {
        const p: ProductState = {
          ...blankProduct('p', 'P', '2026-01-01T00:00:00.000Z'),
          trackInventory: true,
        };
        p.variants = quantities.map((q, i) => ({ id: String(i), choices: {}, quantity: q, inStock: q > 0 }));
        const s = productStock(p);
        expect(s.quantity).toBe(quantities.reduce((a, b) => a + b, 0));
        const inStock = quantities.filter((q) => q > 0).length;
        expect(s.inventoryStatus).toBe(
          inStock === quantities.length
            ? 'IN_STOCK'
            : inStock === 0
              ? 'OUT_OF_STOCK'
              : 'PARTIALLY_OUT_OF_STOCK',
        );
      }),
    );
  });
});

describe('bulk percentage adjustments', () => {
  const rate = fc.integer({ min: -100 * 10_000, max: 500 * 10_000 });
  it('round to the cent exactly, half away from zero, and are monotonic in the rate', () => {
    fc.assert(
      fc.property(cents, rate, rate, (amount, r1, r2) => {
        const out = adjustByPercent(amount, r1);
        const exact2 = BigInt(amount) * BigInt(1_000_000 + r1) * 2n;
        const diff = BigInt(out) * 2_000_000n - exact2;
        expect(diff <= 1_000_000n && diff > -1_000_000n).toBe(true);
        if (r1 <= r2) expect(out).toBeLessThanOrEqual(adjustByPercent(amount, r2));
      }),
    );
  });
  it('round to whole units when asked', () => {
    fc.assert(
      fc.property(cents, rate, (amount, r) => {
        const out = adjustByPercent(amount, r, 100);
        expect(out % 100).toBe(0);
        const exact = (BigInt(amount) * BigInt(1_000_000 + r)) / 1_000_000n;
        expect(Math.abs(out - Number(exact))).toBeLessThanOrEqual(51);
      }),
    );
    expect(adjustByPercent(1999, 15 * 10_000)).toBe(2299);
    expect(adjustByPercent(2299, -10 * 10_000, 100)).toBe(2100);
    expect(adjustByPercent(250, 0, 100)).toBe(300);
  });
  it('scaled() reads back every cent amount written as a number', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (c) => {
        expect(scaled(c / 100, 2)).toBe(c);
      }),
    );
    expect(scaled(1.005, 2)).toBeUndefined();
    expect(scaled(1e-7, 4)).toBeUndefined();
    expect(scaled(Number.NaN, 2)).toBeUndefined();
  });
  it('scaled() and unscaled() take decimal strings back and forth, shortest form out', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e15, max: 1e15 }), fc.integer({ min: 0, max: 6 }), (n, scale) => {
        expect(scaled(unscaled(n, scale), scale)).toBe(n);
      }),
    );
    expect(scaled('10.5', 6)).toBe(10_500_000);
    expect(unscaled(10_500_000, 6)).toBe('10.5');
    expect(unscaled(3_000_000, 6)).toBe('3');
    expect(unscaled(5, 6)).toBe('0.000005');
    expect(scaled('1.0000001', 6)).toBeUndefined();
    for (const text of ['', '1e3', ' 1', '+1', '1.', '.5', 'NaN']) expect(scaled(text, 6)).toBeUndefined();
  });
});
