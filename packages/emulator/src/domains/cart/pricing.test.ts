/**
 * Item discounts: each discount counts a line once, however often it is named, and no line's
 * discount exceeds its price.
 */
import { describe, expect, it } from 'vitest';
import { itemDiscounts } from './pricing.ts';

describe('itemDiscounts', () => {
  it('counts a line named twice once: its discount never exceeds its price', () => {
    const lines = [
      { id: 'L', total: 1000, shippable: true },
      { id: 'M', total: 500, shippable: true },
    ];
    const { discounts, perLine } = itemDiscounts(lines, null, [
      { amount: '15.00', lineItemIds: ['L', 'L'] },
      { percentage: 10, lineItemIds: ['M', 'M', 'M'] },
    ]);
    expect(discounts.map((d) => [d.lineItemIds, d.cents])).toEqual([
      [['L'], 1000],
      [['M'], 50],
    ]);
    expect(Object.fromEntries(perLine)).toEqual({ L: 1000, M: 50 });
  });
});
