/**
 * Item discounts: each discount counts a line once, however often it is named, and no line's
 * discount exceeds its price.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_COUPONS, itemDiscounts, TAX_RULES, taxOf } from './pricing.ts';

describe('itemDiscounts', () => {
  it('counts a line named twice once: its discount never exceeds its price', () => {
    const lines = [
      { id: 'L', total: 1000n, shippable: true },
      { id: 'M', total: 500n, shippable: true },
    ];
    const { discounts, perLine } = itemDiscounts(lines, null, [
      { amount: '15.00', lineItemIds: ['L', 'L'] },
      { percentage: 10, lineItemIds: ['M', 'M', 'M'] },
    ]);
    expect(discounts.map((d) => [d.lineItemIds, d.cents])).toEqual([
      [['L'], 1000n],
      [['M'], 50n],
    ]);
    expect(Object.fromEntries(perLine)).toEqual({ L: 1000n, M: 50n });
  });

  it('takes a percentage coupon and tax off a subtotal past 2^53 cents, to the cent', () => {
    // 20 lines of 9999 × 999 999 999.99: 199 979 999 998 000.20 in all.
    const lines = Array.from({ length: 20 }, (_, i) => ({
      id: `L${i}`,
      total: 9999n * 99_999_999_999n,
      shippable: true,
    }));
    const save10 = { id: 'c', ...DEMO_COUPONS.find((c) => c.code === 'SAVE10')! };
    const { discounts, perLine } = itemDiscounts(lines, save10, []);
    expect(discounts.map((d) => d.cents)).toEqual([1_999_799_999_980_002n]);
    // 99 989 999 999 000.1 a line: the two spare cents go to the first two lines.
    expect([perLine.get('L0'), perLine.get('L1'), perLine.get('L2')]).toEqual([
      99_989_999_999_001n,
      99_989_999_999_001n,
      99_989_999_999_000n,
    ]);
    const ny = TAX_RULES.find((r) => r.name === 'New York')!;
    expect(taxOf(17_998_199_999_820_018n, ny)).toEqual({ tax: 1_597_340_249_984_027n, rate: '0.08875' });
  });
});
