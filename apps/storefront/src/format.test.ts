import { describe, expect, it } from 'vitest';
import { count, discountParts, few, optionCents, shownPrice } from './format.ts';

describe('count', () => {
  it('puts the noun in the singular for one only', () => {
    expect(count(1, 'product')).toBe('1 product');
    expect(count(0, 'product')).toBe('0 products');
    expect(count(2, 'variant')).toBe('2 variants');
    expect(count(3, 'child', 'children')).toBe('3 children');
  });
});

describe('optionCents', () => {
  it('adds a shipping option’s charges to its price (the options list them apart)', () => {
    const price = (amount: string) => ({ amount });
    expect(optionCents({ price: price('15.00'), otherCharges: [{ price: price('2.00') }] })).toBe(1700);
    expect(optionCents({ price: price('0.00') })).toBe(0);
    expect(
      optionCents({
        price: price('0.10'),
        otherCharges: [{ price: price('0.20') }, { price: price('0.05') }],
      }),
    ).toBe(35);
  });
});

describe('few', () => {
  it('lists up to `max` names in full', () => {
    expect(few([])).toBe('');
    expect(few(['a'])).toBe('a');
    expect(few(['a', 'b', 'c'])).toBe('a, b, c');
    expect(few(['a', 'b', 'c', 'd', 'e'], 5)).toBe('a, b, c, d, e');
  });

  it('lists the first `max` and how many more beyond them', () => {
    expect(few(['a', 'b', 'c', 'd'])).toBe('a, b, c and 1 more');
    expect(few(['a', 'b', 'c', 'd', 'e', 'f', 'g'], 5)).toBe('a, b, c, d, e and 2 more');
    expect(few(['a', 'b'], 1)).toBe('a and 1 more');
  });
});

describe('shownPrice', () => {
  it("shows a product's own price, and its discounted price when lower", () => {
    expect(shownPrice({ price: { price: 20 } })).toEqual({ from: false, price: 20 });
    expect(shownPrice({ price: { price: 20, discountedPrice: 15 } })).toEqual({
      from: false,
      price: 20,
      sale: 15,
    });
    expect(
      shownPrice({ price: { price: 20, discountedPrice: 20 }, priceRange: { minValue: 20, maxValue: 20 } }),
    ).toEqual({ from: false, price: 20 });
  });

  it('shows the cheapest variant of a product whose variants differ, with the discount applied to it', () => {
    const product = { price: { price: 20 }, priceRange: { minValue: 12.5, maxValue: 30 } };
    expect(shownPrice(product)).toEqual({ from: true, price: 12.5 });
    expect(shownPrice({ ...product, discount: { type: 'AMOUNT', value: 5 } })).toEqual({
      from: true,
      price: 12.5,
      sale: 7.5,
    });
    expect(shownPrice({ ...product, discount: { type: 'PERCENT', value: 10 } })).toEqual({
      from: true,
      price: 12.5,
      sale: 11.25,
    });
    expect(shownPrice({ ...product, discount: { type: 'AMOUNT', value: 50 } }).sale).toBe(0);
    expect(shownPrice({ ...product, discount: { type: 'NONE', value: 5 } })).toEqual({
      from: true,
      price: 12.5,
    });
  });
});

describe('discountParts', () => {
  it("splits an estimate's discount into the shipping's and the items'", () => {
    const est = (discount: string, shipping?: string) => ({
      priceSummary: { discount: { amount: discount } },
      shippingInfo: {
        selectedCarrierServiceOption: shipping ? { cost: { totalDiscount: { amount: shipping } } } : {},
      },
    });
    // FREESHIP: the whole discount is the shipping's.
    expect(discountParts(est('5.00', '5.00'))).toEqual({ shipping: 500, items: 0 });
    // SAVE10 on $22.00 of items: the items' alone.
    expect(discountParts(est('2.20'))).toEqual({ shipping: 0, items: 220 });
    expect(discountParts(est('7.20', '5.00'))).toEqual({ shipping: 500, items: 220 });
    expect(discountParts(undefined)).toEqual({ shipping: 0, items: 0 });
  });
});
