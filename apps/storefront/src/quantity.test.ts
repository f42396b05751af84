import type { cart } from '@shopkit/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_QUANTITY, parseQuantity, quantityInCart, quantityProblem, trackedStock } from './quantity.ts';

describe('parseQuantity', () => {
  it('reads whole numbers in digits, ignoring spaces around them', () => {
    expect(parseQuantity('3')).toBe(3);
    expect(parseQuantity(' 3 ')).toBe(3);
    expect(parseQuantity('\t12\n')).toBe(12);
    expect(parseQuantity('007')).toBe(7);
    expect(parseQuantity('0')).toBe(0);
  });

  it('reads nothing else: no empty text, sign, decimal point, exponent, separator or other digits', () => {
    for (const text of [
      '',
      '   ',
      '1.5',
      '2.',
      '-3',
      '+3',
      '1e3',
      '0x10',
      '1,000',
      '1 000',
      'abc',
      '３',
      'Infinity',
    ])
      expect(parseQuantity(text), text).toBeUndefined();
  });
});

describe('trackedStock', () => {
  it('is the quantity of a variant in stock whose inventory is tracked', () => {
    expect(trackedStock({ id: 'v', choices: {}, inStock: true, quantity: 4 })).toBe(4);
  });

  it('limits nothing when no variant is chosen, the variant is out of stock or untracked', () => {
    expect(trackedStock(undefined)).toBeUndefined();
    expect(trackedStock(null)).toBeUndefined();
    expect(trackedStock({ id: 'v', choices: {}, inStock: false, quantity: 0 })).toBeUndefined();
    expect(trackedStock({ id: 'v', choices: {}, inStock: true })).toBeUndefined();
  });
});

describe('quantityInCart', () => {
  const line = (catalogItemId: string, variantId: string | undefined, quantity: number) =>
    ({
      id: `${catalogItemId}-${variantId}`,
      quantity,
      catalogReference: { appId: 'app', catalogItemId, ...(variantId ? { options: { variantId } } : {}) },
    }) as cart.LineItem;
  const lines = [line('shirt', 's-white', 2), line('shirt', 'm-white', 3), line('mug', undefined, 5)];

  it('counts the lines of the product, of the variant when one is given', () => {
    expect(quantityInCart(lines, 'shirt', 's-white')).toBe(2);
    expect(quantityInCart([...lines, line('shirt', 's-white', 1)], 'shirt', 's-white')).toBe(3);
    expect(quantityInCart(lines, 'shirt')).toBe(5);
    expect(quantityInCart(lines, 'mug')).toBe(5);
  });

  it('is 0 without a cart, a line of the product or of the variant', () => {
    expect(quantityInCart(undefined, 'shirt')).toBe(0);
    expect(quantityInCart(lines, 'scarf')).toBe(0);
    expect(quantityInCart(lines, 'shirt', 'l-white')).toBe(0);
    expect(quantityInCart([{ id: 'custom', quantity: 1 } as cart.LineItem], 'shirt')).toBe(0);
  });
});

describe('quantityProblem', () => {
  const untracked = { inCart: 0 };

  it('asks for a quantity when the box is empty or blank', () => {
    expect(quantityProblem('', untracked)).toBe('Enter a quantity.');
    expect(quantityProblem('  ', untracked)).toBe('Enter a quantity.');
  });

  it('asks for a whole number for anything but digits', () => {
    for (const text of ['1.5', '-3', '+3', '1e3', '2,5', 'two'])
      expect(quantityProblem(text, untracked), text).toBe('Enter a whole number, such as 1 or 2.');
  });

  it('asks for at least 1', () => {
    expect(quantityProblem('0', untracked)).toBe('Enter at least 1.');
    expect(quantityProblem('000', { stock: 4, inCart: 0 })).toBe('Enter at least 1.');
  });

  it('takes 1 up to the limit at a time when the stock is unknown or untracked, spaces around it too', () => {
    expect(quantityProblem('1', untracked)).toBeUndefined();
    expect(quantityProblem(' 42 ', untracked)).toBeUndefined();
    expect(quantityProblem(String(MAX_QUANTITY), { inCart: 500 })).toBeUndefined();
    expect(quantityProblem(String(MAX_QUANTITY + 1), untracked)).toBe('You can add up to 99 at a time.');
    expect(quantityProblem('99999999999999999999999', untracked)).toBe('You can add up to 99 at a time.');
  });

  it('stops at the stock left, and says how many the cart holds', () => {
    expect(quantityProblem('4', { stock: 4, inCart: 0 })).toBeUndefined();
    expect(quantityProblem(' 4 ', { stock: 4, inCart: 0 })).toBeUndefined();
    expect(quantityProblem('5', { stock: 4, inCart: 0 })).toBe('Only 4 left: you can add up to 4.');
    expect(quantityProblem('3', { stock: 4, inCart: 1 })).toBeUndefined();
    expect(quantityProblem('4', { stock: 4, inCart: 1 })).toBe(
      'Only 4 left and 1 already in your cart: you can add up to 3.',
    );
    expect(quantityProblem('1', { stock: 4, inCart: 4 })).toBe('All 4 in stock are already in your cart.');
    // The stock went down after the cart took more than is left now.
    expect(quantityProblem('1', { stock: 3, inCart: 5 })).toBe('All 3 in stock are already in your cart.');
  });

  it('names the limit at a time, not a stock left above it that cannot be added anyway', () => {
    expect(quantityProblem('120', { stock: 150, inCart: 0 })).toBe('You can add up to 99 at a time.');
    expect(quantityProblem('200', { stock: 150, inCart: 0 })).toBe('You can add up to 99 at a time.');
    expect(quantityProblem('100', { stock: 99, inCart: 0 })).toBe('You can add up to 99 at a time.');
    expect(quantityProblem('99', { stock: 150, inCart: 0 })).toBeUndefined();
    expect(quantityProblem('99', { stock: 150, inCart: 60 })).toBe(
      'Only 150 left and 60 already in your cart: you can add up to 90.',
    );
  });

  it('takes exactly 1 up to the smaller of the stock left and the limit at a time', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }),
        fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
        fc.integer({ min: 0, max: 300 }),
        (n, stock, inCart) => {
          const most = Math.min(MAX_QUANTITY, stock === undefined ? Infinity : stock - inCart);
          expect(quantityProblem(String(n), { stock, inCart }) === undefined).toBe(n >= 1 && n <= most);
        },
      ),
    );
  });
});
